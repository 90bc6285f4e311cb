import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsRendering

extension DashboardPage {
    /// `/funnel`: the ad-hoc funnel under its form; without a report (no steps named yet), the
    /// form alone with what to enter.
    static func adHocFunnel(
        _ report: AdHocFunnelReport?, query: DashboardQuery, path: String, asOf: Date, newestEvent: Date?
    ) -> String {
        guard let report else {
            var body =
                "<p role=\"status\">Name the funnel's steps, in order and comma-separated, to see how many "
                + "sessions (or users) reach each one. A step is an event name (a custom event, feature or "
                + "highlight), a step id, an event kind such as <code>flow_completed</code>, or "
                + "<code>KIND:VALUE</code> such as <code>feature_used:share</code>; no flow definition is "
                + "needed.</p>\n"
            body += form(reportFields["funnel"] ?? [], query: query, path: path)
            body +=
                "<p class=\"note\">Order: ordered lets other events come between the steps, strict allows "
                + "none, any takes the steps in any order. The same funnel as <code>funnel report --steps "
                + "a,b,c</code>; query parameters as its options: "
                + "\(HTML.escape(DashboardRouter.reportParameters["funnel"] ?? "")).</p>\n"
            return document(
                title: "Ad-hoc funnel", asOf: asOf, newestEvent: newestEvent,
                sections: [DashboardPage(htmlSectionID: "filters", htmlSectionTitle: "Steps", body: body)])
        }
        return DashboardPage.report(
            report, page: "funnel", parameters: DashboardRouter.reportParameters["funnel"] ?? "", query: query,
            path: path, asOf: asOf, newestEvent: newestEvent)
    }
}
