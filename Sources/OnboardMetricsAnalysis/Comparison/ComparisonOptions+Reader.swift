import Foundation
import OnboardMetricsReader

extension ComparisonOptions {
    /// A reader that sees both cohorts: for two date ranges, from the earlier start to the later
    /// end (an open end stays open); otherwise `funnel.since`/`funnel.until`; events up to the end
    /// plus the window, as the funnel report reads.
    public var reader: SessionReader {
        var since = funnel.since
        var until = funnel.until
        if case .started(let aSince, let aUntil) = a, case .started(let bSince, let bUntil) = b {
            since = aSince.flatMap { a in bSince.map { min(a, $0) } }
            until = aUntil.flatMap { a in bUntil.map { max(a, $0) } }
        }
        return SessionReader(
            since: since, until: until.map { $0.addingTimeInterval(funnel.window) },
            closeAfter: funnel.window + funnel.inactivity, closeFinishedAfter: funnel.inactivity)
    }
}
