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

    /// The home page: flows with started and completion over 7 and 30 days, and experiments.
    static func home(_ home: DashboardHome) -> String {
        let since7 = DashboardQuery.escape(
            ISO8601DateFormatter().string(from: home.asOf.addingTimeInterval(-7 * 86_400)))
        let since30 = DashboardQuery.escape(
            ISO8601DateFormatter().string(from: home.asOf.addingTimeInterval(-30 * 86_400)))
        let rows = home.flows.map { flow in
            let last7 = flow.last7Days
            let last30 = flow.last30Days
            return HTMLTable.Row(
                key: flow.id,
                cells: [
                    HTMLTable.Cell(flow.id), .count(flow.version), .count(last7.started),
                    .percent(last7.completionRate),
                    .count(last30.started), .percent(last30.completionRate),
                ])
        }
        // Wide on a phone: the table scrolls sideways in its own box, the page does not.
        var flows =
            "<div class=\"table-wrap\">"
            + HTMLTable(
                caption: "Flows: sessions started and completion rate",
                header: [
                    "flow", "version", "started, 7 days", "completion, 7 days", "started, 30 days",
                    "completion, 30 days",
                ], rows: rows, numericColumns: [1, 2, 3, 4, 5], name: "flows"
            ).render() + "</div>\n"
        flows += "<ul>\n"
        for flow in home.flows {
            let flowPath = path("/flows", flow.id)
            flows +=
                "<li>\(link(flowPath, text: flow.id)) (\(link(flowPath, query: "since=\(since7)", text: "7 days")), "
                + "\(link(flowPath, query: "since=\(since30)", text: "30 days")))</li>\n"
        }
        flows += "</ul>\n"
        if home.flows.isEmpty {
            flows = "<p>No stored flows yet: <code>funnel demo</code> or storing a flow definition adds one.</p>\n"
        }
        var experiments = "<ul>\n"
        for experiment in home.experiments {
            experiments +=
                "<li>\(link(path("/experiments", experiment.key), text: experiment.key)): "
                + "\(HTML.escape(experiment.variants.joined(separator: ", ")))</li>\n"
        }
        experiments += "</ul>\n"
        if home.experiments.isEmpty { experiments = "<p>No stored experiments.</p>\n" }
        return document(
            title: "OnboardMetrics dashboard", asOf: home.asOf, newestEvent: home.newestEvent,
            sections: [
                DashboardPage(htmlSectionID: "flows", htmlSectionTitle: "Flows", body: flows),
                DashboardPage(htmlSectionID: "experiments", htmlSectionTitle: "Experiments", body: experiments),
            ])
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
        let filters = DashboardPage(htmlSectionID: "filters", htmlSectionTitle: "Filters", body: form)
        return document(
            title: "Flow \(report.flowID)", asOf: asOf, newestEvent: newestEvent, sections: [report, filters])
    }

    /// A report that explains drop-off (correlation, paths, retention), with its query's options
    /// and its JSON twin.
    static func why(
        _ report: any HTMLReportSection, query: DashboardQuery, path: String, asOf: Date, newestEvent: Date?
    ) -> String {
        let json = query.encoded.isEmpty ? "format=json" : query.encoded + "&format=json"
        let links = DashboardPage(
            htmlSectionID: "filters", htmlSectionTitle: "Options",
            body: "<p>Query parameters as the command's options (since, until, per, window, step, between, "
                + "by, days, depth, top, correction). \(link(path, query: json, text: "This view as JSON")).</p>\n")
        return document(
            title: report.htmlSectionTitle, asOf: asOf, newestEvent: newestEvent, sections: [report, links])
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

/// What the home page shows, and its JSON twin.
struct DashboardHome: Sendable, Encodable {
    struct Flow: Sendable, Encodable {
        var id: String
        var version: Int
        var last7Days: Window
        var last30Days: Window

        enum CodingKeys: String, CodingKey {
            case id, version
            case last7Days = "last_7_days"
            case last30Days = "last_30_days"
        }
    }

    struct Window: Sendable, Encodable {
        var started: Int
        var completed: Int
        var completionRate: Double?
    }

    struct Experiment: Sendable, Encodable {
        var key: String
        var variants: [String]
    }

    var asOf: Date
    var newestEvent: Date?
    var flows: [Flow]
    var experiments: [Experiment]
}
