import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsRendering
import OnboardMetricsSDK

extension DashboardRouter {
    /// The most rows `/flows/ID/users` lists in HTML.
    static let usersShown = 1000

    /// What each report page takes in its query string, as its command's options.
    static let reportParameters = [
        "trends": "interval (day, week, month), by, since, until, window, inactivity",
        "compare": "a_since, a_until, b_since, b_until (two start-date cohorts) or property, a, b; "
            + "alpha, correction, since, until, window, inactivity",
        "users":
            "step, status (viewed, completed, skipped, dropped, in_progress), per, since, until, window, inactivity",
        "funnel": "steps (comma-separated: event names, step ids, kinds or KIND:VALUE), order (ordered, strict, "
            + "any), per, window, inactivity, since, until",
        "discovery": "highlight, window, holdout, holdout_variant, per, since, until",
        "retention": "by (outcome, variant:EXPERIMENT, flow_version), days, per, since, until, window, inactivity",
        "correlation": "step, per, since, until, window, inactivity, breakdown, correction (holm, bh), top",
        "paths": "step (after a drop there) or between=A,B, depth, top, per, since, until, window, inactivity",
    ]

    /// `/flows/ID/trends`, `/compare`, `/users`: each equal to its CLI command's JSON (`funnel
    /// trends`, `compare`, `users --format json`) for the same options.
    static func flowReport(_ dashboard: Dashboard, page: String, id: String, query: DashboardQuery, path: String)
        async throws -> Answer
    {
        let now = dashboard.clock()
        // The options first: a bad parameter is a 400 whether or not the flow exists.
        let report: any HTMLReportSection & Sendable
        let json: JSONTwin
        var note: String?
        switch page {
        case "trends":
            let options = try query.trendOptions()
            let definition = try await storedFlow(dashboard, id: id)
            let built = try await dashboard.data.report(
                reader: FunnelReport.reader(options: options.funnel), people: false
            ) { TrendAggregator(flow: definition, options: options, now: now) }
            (report, json) = (built, .whole { try built.rendered(.json) })
        case "compare":
            let options = try query.comparisonOptions()
            let definition = try await storedFlow(dashboard, id: id)
            let built = try await dashboard.data.report(reader: options.reader, people: false) {
                ComparisonAggregator(flow: definition, options: options, now: now)
            }
            (report, json) = (built, .whole { try built.rendered(.json) })
        default:
            let options = try query.unitListOptions()
            let definition = try await storedFlow(dashboard, id: id)
            do {
                _ = try UnitListAggregator(flow: definition, options: options, now: now)
            } catch let error as UnitListError {
                throw DashboardError(.badRequest, error.description)
            }
            let built = try await dashboard.data.report(reader: options.reader, people: options.unit == .user) {
                try UnitListAggregator(flow: definition, options: options, now: now)
            }
            // A page lists at most `usersShown` rows, so a long list stays a page; the JSON lists all.
            var shown = built
            if shown.rows.count > usersShown { shown.rows = Array(shown.rows.prefix(usersShown)) }
            // Written a thousand rows at a time, as `funnel users` writes it: encoded whole, a long
            // list held the encoder's tree of every row (about 1 GB for 569k rows).
            (report, json) = (shown, .pieces(try built.pieces(.json)))
            if built.rows.count > usersShown {
                note =
                    "The first \(usersShown) of \(built.rows.count) are listed here; the JSON twin "
                    + "(and funnel users) lists them all."
            }
        }
        let newestEvent = try await dashboard.data.newestEvent()
        return Answer(
            html: DashboardPage.report(
                report, page: page, parameters: reportParameters[page] ?? "", note: note, query: query, path: path,
                asOf: now,
                newestEvent: newestEvent),
            json: json, newestEvent: newestEvent)
    }

    /// `/discovery`: per highlight, as `funnel discovery --format json` for the same options.
    static func discovery(_ dashboard: Dashboard, query: DashboardQuery, path: String) async throws -> Answer {
        let options = try query.discoveryOptions()
        let now = dashboard.clock()
        let report = try await dashboard.data.report(reader: options.reader, people: options.unit == .user) {
            DiscoveryAggregator(options: options)
        }
        let newestEvent = try await dashboard.data.newestEvent()
        return Answer(
            html: DashboardPage.report(
                report, page: "discovery", parameters: reportParameters["discovery"] ?? "", query: query, path: path,
                asOf: now,
                newestEvent: newestEvent),
            json: .whole { try report.rendered(.json) }, newestEvent: newestEvent)
    }

    /// The stored flow `id`, or a 404 naming it.
    static func storedFlow(_ dashboard: Dashboard, id: String) async throws -> FlowDefinition {
        guard let definition = try await dashboard.data.flow(id: id) else {
            throw DashboardError(.notFound, "no stored flow has the id \(id.debugDescription)")
        }
        return definition
    }
}
