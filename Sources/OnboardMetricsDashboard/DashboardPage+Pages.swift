import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsRendering
import OnboardMetricsSDK

extension DashboardPage {
    /// The sign-in form; `next` is where to go after (a local path only).
    static func login(message: String?, next: String, asOf: Date) -> String {
        var body = ""
        if let message { body += "<p class=\"warning\" role=\"alert\">\(HTML.escape(message))</p>\n" }
        body += """
            <form method="post" action="/login">
            <input type="hidden" name="next" value="\(HTML.escape(next))">
            <p><label>Viewer name<br><input name="name" autocomplete="username" required></label></p>
            <p><label>Secret<br><input name="secret" type="password" autocomplete="current-password" required></label></p>
            <p><button type="submit">Sign in</button></p>
            </form>
            <p class="note">A viewer and its secret come from <code>funnel viewers create NAME</code>. \
            Scripts may send them as HTTP Basic instead.</p>

            """
        let section = DashboardPage(htmlSectionID: "sign-in", htmlSectionTitle: "Sign in", body: body)
        let formatter = ISO8601DateFormatter()
        return HTMLDocument(
            title: "OnboardMetrics dashboard", subtitle: "As of \(formatter.string(from: asOf)).", sections: [section],
            generatedAt: asOf
        ).render()
    }

    /// An error page: the message only (never a database URL, password or secret).
    static func error(_ error: DashboardError, asOf: Date, signedIn: Bool) -> String {
        let section = DashboardPage(
            htmlSectionID: "error", htmlSectionTitle: "Error \(error.code.status)",
            body: "<p role=\"alert\">\(HTML.escape(error.message))</p>\n")
        var sections: [any HTMLReportSection] = [section]
        if signedIn { sections.append(navigation) }
        return HTMLDocument(title: "OnboardMetrics dashboard", sections: sections, generatedAt: asOf).render()
    }

    /// A flow's funnel with a filter form whose fields hold the query (a GET: the URL is the view).
    static func flow(
        _ report: FunnelReport, query: DashboardQuery, path: String, asOf: Date, newestEvent: Date?
    ) -> String {
        func field(_ name: String, _ label: String, _ placeholder: String) -> String {
            "<label>\(label) <input name=\"\(name)\" value=\"\(HTML.escape(query.value(name) ?? ""))\" "
                + "placeholder=\"\(placeholder)\" size=\"12\"></label>\n"
        }
        let per = query.value("per") ?? "session"
        var form = "<form method=\"get\" action=\"\(HTML.escape(path))\">\n"
        form += field("since", "Since", "2026-01-01") + field("until", "Until", "2026-02-01")
        form += "<label>Per <select name=\"per\">"
        for unit in FunnelOptions.Unit.allCases {
            form +=
                "<option\(unit.rawValue == per ? " selected" : "")>\(unit.rawValue)</option>"
        }
        form += "</select></label>\n"
        form += field("breakdown", "Breakdown", "platform") + field("window", "Window", "7d")
        form += "<button type=\"submit\">Show</button></form>\n"
        let json = query.encoded.isEmpty ? "format=json" : query.encoded + "&format=json"
        form +=
            "<p>\(link(path, query: json, text: "This view as JSON")) (as <code>funnel report --format json</code>)</p>\n"
        form +=
            "<p>Why users drop: "
            + ["correlation", "paths", "retention"].map {
                link(path + "/" + $0, query: query.encoded, text: $0)
            }.joined(separator: " · ") + "</p>\n"
        form +=
            "<p>More: \(link(path + "/trends", query: query.encoded, text: "trends by week")) · "
            + "\(link(path + "/trends", query: query.encoded + (query.encoded.isEmpty ? "" : "&") + "interval=day", text: "by day")) · "
            + "\(link(path + "/compare", query: weekOverWeek(asOf), text: "this week against the last")) · "
            + "\(link(path + "/users", query: query.encoded, text: "who dropped"))</p>\n"
        let filters = DashboardPage(htmlSectionID: "filters", htmlSectionTitle: "Filters", body: form)
        return document(
            title: "Flow \(report.flowID)", asOf: asOf, newestEvent: newestEvent, sections: [filters, report])
    }

    /// An experiment's report.
    static func experiment(
        _ report: ExperimentReport, query: DashboardQuery, path: String, asOf: Date, newestEvent: Date?
    ) -> String {
        let json = query.encoded.isEmpty ? "format=json" : query.encoded + "&format=json"
        let links = DashboardPage(
            htmlSectionID: "filters", htmlSectionTitle: "Options",
            body: "<p>Query parameters: metric (repeatable), per, window, since, until. "
                + "\(link(path, query: json, text: "This view as JSON")).</p>\n")
        return document(
            title: "Experiment \(report.key)", asOf: asOf, newestEvent: newestEvent, sections: [report, links])
    }
}

extension DashboardPage {
    /// A report page (trends, comparison, users at a step, discovery, and the reports that
    /// explain drop-off: retention, correlation, paths): its filter form over the report, the
    /// query parameters it takes, and its JSON twin.
    static func report(
        _ report: any HTMLReportSection, page: String, parameters: String, note: String? = nil,
        query: DashboardQuery, path: String, asOf: Date, newestEvent: Date?
    ) -> String {
        let json = query.encoded.isEmpty ? "format=json" : query.encoded + "&format=json"
        var body = form(reportFields[page] ?? [], query: query, path: path)
        body += note.map { "<p class=\"warning\">\(HTML.escape($0))</p>\n" } ?? ""
        body +=
            "<p class=\"note\">Query parameters as the command's options: \(HTML.escape(parameters)). "
            + "\(link(path, query: json, text: "This view as JSON")).</p>\n"
        let filters = DashboardPage(htmlSectionID: "filters", htmlSectionTitle: "Filters", body: body)
        return document(
            title: report.htmlSectionTitle, asOf: asOf, newestEvent: newestEvent, sections: [filters, report])
    }
}
