import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsRendering

extension DashboardPage {
    /// The home page: flows with started and completion over 7 and 30 days and a sparkline of the
    /// sessions started per day; experiments; highlights with their discovery rate.
    static func home(_ home: DashboardHome) -> String {
        let formatter = ISO8601DateFormatter()
        let since7 = DashboardQuery.escape(formatter.string(from: home.asOf.addingTimeInterval(-7 * 86_400)))
        let since30 = DashboardQuery.escape(formatter.string(from: home.asOf.addingTimeInterval(-30 * 86_400)))
        // Started over completion in one cell, the sparkline under the flow's name: three columns
        // fit a phone. Written here, not with HTMLTable, because the cells hold links and a chart.
        func cell(_ window: DashboardHome.Window) -> String {
            let rate = NumberText.percent(window.completionRate)
            return "<td class=\"num\"><span data-value=\"\(window.started)\">\(window.started)</span> started<br>"
                + "<span data-value=\"\(HTML.escape(HTML.exact(window.completionRate) ?? ""))\">\(HTML.escape(rate))</span> "
                + "completed</td>"
        }
        var flows = """
            <div class="table-wrap"><table data-table="flows"><caption>Sessions started and completion \
            rate; the line: sessions started per day over 30 days</caption>
            <thead><tr><th scope="col">flow</th><th scope="col" class="num">last 7 days</th>\
            <th scope="col" class="num">last 30 days</th></tr></thead>
            <tbody>

            """
        for flow in home.flows {
            let flowPath = path("/flows", flow.id)
            flows += "<tr data-key=\"\(HTML.escape(flow.id))\"><th scope=\"row\">"
            flows += link(flowPath, text: flow.id) + " <span class=\"note\">v\(flow.version)</span><br>"
            flows += DashboardSparkline(values: flow.dailyStarted, label: flow.id).render() + "</th>"
            flows += cell(flow.last7Days) + cell(flow.last30Days) + "</tr>\n"
        }
        flows += "</tbody></table></div>\n<ul>\n"
        for flow in home.flows {
            let flowPath = path("/flows", flow.id)
            flows +=
                "<li>\(link(flowPath, text: flow.id)): \(link(flowPath, query: "since=\(since7)", text: "7 days")), "
                + "\(link(flowPath, query: "since=\(since30)", text: "30 days")), "
                + "\(link(flowPath + "/trends", text: "trends")), "
                + "\(link(flowPath + "/compare", query: weekOverWeek(home.asOf), text: "this week against the last"))</li>\n"
        }
        flows += "</ul>\n"
        if home.flows.isEmpty {
            flows = "<p>No stored flows yet: <code>funnel demo</code> or storing a flow definition adds one.</p>\n"
        }
        // Ad-hoc funnels need no stored flow, so the link shows with or without flows.
        flows +=
            "<p>\(link("/funnel", text: "Ad-hoc funnel")): any steps, by event name, step id or kind, "
            + "without a flow definition.</p>\n"
        var experiments = "<ul>\n"
        for experiment in home.experiments {
            experiments +=
                "<li>\(link(path("/experiments", experiment.key), text: experiment.key)): "
                + "\(HTML.escape(experiment.variants.joined(separator: ", ")))</li>\n"
        }
        experiments += "</ul>\n"
        if home.experiments.isEmpty { experiments = "<p>No stored experiments.</p>\n" }
        var highlights = "<ul>\n"
        for row in home.highlights {
            highlights +=
                "<li>\(link("/discovery", query: "highlight=\(DashboardQuery.escape(row.highlight))&since=\(since30)", text: row.highlight))"
                + (row.feature.map { " (\(HTML.escape($0)))" } ?? "")
                + ": shown to \(row.shown), \(NumberText.percent(row.rate)) discovered the feature</li>\n"
        }
        highlights += "</ul>\n"
        if home.highlights.isEmpty { highlights = "<p>No highlight was shown in the last 30 days.</p>\n" }
        highlights += "<p>\(link("/discovery", text: "Feature discovery, all time"))</p>\n"
        return document(
            title: "OnboardMetrics dashboard", asOf: home.asOf, newestEvent: home.newestEvent,
            sections: [
                DashboardPage(htmlSectionID: "flows", htmlSectionTitle: "Flows", body: flows),
                DashboardPage(htmlSectionID: "experiments", htmlSectionTitle: "Experiments", body: experiments),
                DashboardPage(
                    htmlSectionID: "highlights", htmlSectionTitle: "Highlights, last 30 days", body: highlights),
            ])
    }

    /// The query of `/flows/ID/compare` for the 7 UTC days up to and including `now`'s (B) against
    /// the 7 before them (A), as whole days so the form shows short dates.
    static func weekOverWeek(_ now: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let tomorrow = DashboardData.utcDayStart(now).addingTimeInterval(86_400)
        func day(_ back: Double) -> String { formatter.string(from: tomorrow.addingTimeInterval(-back * 86_400)) }
        return "a_since=\(day(14))&a_until=\(day(7))&b_since=\(day(7))&b_until=\(day(0))"
    }
}
