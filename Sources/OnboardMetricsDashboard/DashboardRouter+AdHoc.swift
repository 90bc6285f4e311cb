import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsRendering

extension DashboardRouter {
    /// `/funnel?steps=a,b,c`: the ad-hoc funnel, its JSON twin equal to `funnel report --steps
    /// a,b,c --format json` for the same options. Without steps, a form to name them (HTML) or a
    /// 400 naming `steps` (JSON).
    static func adHocFunnel(_ dashboard: Dashboard, query: DashboardQuery, path: String) async throws -> Answer {
        let parsed = try query.adHocFunnel()
        let now = dashboard.clock()
        async let newest = dashboard.data.newestEvent()
        guard let parsed else {
            let newestEvent = try await newest
            return Answer(
                html: DashboardPage.adHocFunnel(nil, query: query, path: path, asOf: now, newestEvent: newestEvent),
                json: .whole { "" }, newestEvent: newestEvent,
                jsonRefusal: DashboardError(
                    .badRequest, "steps is missing: name the funnel's steps, comma-separated (steps=welcome,consent)"))
        }
        let report = try await dashboard.data.adHocFunnel(parsed.funnel, options: parsed.options)
        let newestEvent = try await newest
        return Answer(
            html: DashboardPage.adHocFunnel(report, query: query, path: path, asOf: now, newestEvent: newestEvent),
            json: .whole { try report.rendered(.json) }, newestEvent: newestEvent)
    }
}
