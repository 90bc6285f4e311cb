import Foundation
import OnboardMetricsReader
import OnboardMetricsStatistics

/// What a correlation report counts and how it tests.
public struct CorrelationOptions: Sendable, Hashable {
    /// Unit, window, inactivity, time range, report end and breakdown, as the flow funnel's (the
    /// same replay decides who completed, dropped or is still in progress).
    public var funnel = FunnelOptions()
    /// A step id: units that viewed it, split by whether they moved past it; `nil` for the whole flow.
    public var step: String?
    /// The multiple-comparison correction across the candidates of a group. Default Benjamini–Hochberg.
    public var correction: MultipleComparisonCorrection = .bh
    /// An association is called significant when its adjusted p-value is below this. Default 0.05.
    public var alpha = 0.05
    /// How many candidates each list (positive, negative) shows; 0 for all. Default 10.
    public var top = 10
    /// Fewer successes or failures than this in a group draws a warning. Default 30.
    public var minimumUnits = 30
    /// A success share outside this range draws a warning. Default 10 %...90 %.
    public var balancedShare: ClosedRange<Double> = 0.1...0.9

    /// Default options.
    public init() {}

    /// A reader that sees what the report needs: events from `since` until `until` plus the window,
    /// and sessions kept open across gaps as long as the window plus the inactivity timeout.
    public var reader: SessionReader {
        SessionReader(
            since: funnel.since, until: funnel.until.map { $0.addingTimeInterval(funnel.window) },
            closeAfter: funnel.window + funnel.inactivity)
    }
}
