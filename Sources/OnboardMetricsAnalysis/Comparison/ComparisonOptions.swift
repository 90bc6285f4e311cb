import Foundation
import OnboardMetricsStatistics

/// What `funnel compare` compares: two cohorts of a flow's sessions, and the regression gate.
public struct ComparisonOptions: Sendable, Hashable {
    /// Which sessions form a cohort.
    public enum Cohort: Sendable, Hashable, CustomStringConvertible {
        /// Sessions that started in `[since, until)` (either end open when `nil`).
        case started(since: Date?, until: Date?)
        /// Sessions whose context attribute `property` has this value (as the funnel's breakdown
        /// writes it: strings as they are, whole numbers without a fraction, true/false).
        case property(String, value: String)

        public var description: String {
            switch self {
            case .started(let since, let until):
                let format = { (date: Date?) in date.map { ISO8601DateFormatter().string(from: $0) } ?? "…" }
                return "started \(format(since)) – \(format(until))"
            case .property(let name, let value): return "\(name) = \(value)"
            }
        }
    }

    /// The baseline cohort (A).
    public var a: Cohort
    /// The cohort compared with it (B); differences are B − A.
    public var b: Cohort
    /// Window and inactivity as for the funnel report; `since`/`until` bound both cohorts; the
    /// unit is the session.
    public var funnel = FunnelOptions()
    /// Significance level of the tests, after the correction across the rows.
    public var alpha = 0.05
    /// The multiple-comparison correction across the rows: Holm (default) or Benjamini–Hochberg.
    public var correction: MultipleComparisonCorrection = .holm
    /// Power for the sample-size warnings.
    public var power = 0.8
    /// The gate: a row whose conversion falls by more than this (absolute, 0.02 = 2 points) with
    /// an adjusted p-value below alpha is a regression. `nil`: no gate.
    public var regressionThreshold: Double?
    /// The drop the sample-size warnings are about when there is no gate (2 points).
    public var defaultDetectableDrop = 0.02

    /// Options comparing cohort `b` with cohort `a`.
    public init(a: Cohort, b: Cohort) {
        self.a = a
        self.b = b
    }

    /// The drop the sample-size warnings are about.
    public var detectableDrop: Double { regressionThreshold ?? defaultDetectableDrop }
}
