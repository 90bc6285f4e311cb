import Foundation
import OnboardMetricsStatistics

/// A flow's funnel in two cohorts (two date ranges, or two values of a context attribute such as
/// `appVersion`), step by step, with a regression gate for CI.
///
/// Methods, per row (each step, then completion), B against A:
/// - **conversion**: a step's conversion from the previous step, as in the funnel report (viewed,
///   among eligible sessions that viewed the previous step that applied to them); the completion
///   row is completed among sessions not in progress. Wilson intervals per cohort; the difference
///   B − A with Newcombe's hybrid score interval; two-sided pooled two-proportion z-test; **Holm**
///   adjustment across all rows; significant when the adjusted p-value is below alpha.
/// - **regression** (with a gate): the conversion fell by more than the threshold and the fall is
///   significant after adjustment. Under no change the chance that any row is flagged is at most
///   alpha (Holm controls the family-wise error rate).
/// - **skip rate**: skipped among viewed; difference with Newcombe's interval and the z-test.
/// - **time on step**: medians (type 7) per cohort and the **Mann-Whitney U** rank test
///   (normal approximation with tie and continuity corrections): whether times in B tend to be
///   longer or shorter, robust to the long tail of durations.
/// - **sample size**: sessions per cohort needed to detect a fall of the detectable drop from
///   A's conversion with a two-sided test at alpha / rows (the strictest Holm level) and the given
///   power (Fleiss); a row where either cohort has fewer is flagged and warned about.
public struct ComparisonReport: Sendable, Hashable, Codable {
    /// One cohort's figures on one row.
    public struct CohortRow: Sendable, Hashable, Codable {
        /// Sessions the step applied to (not in progress).
        public var eligible: Int
        /// The conversion's denominator: eligible sessions that reached the previous step (or
        /// started; for the completion row, sessions not in progress).
        public var entered: Int
        /// The numerator: of those, the sessions that viewed the step (completed, for completion).
        public var converted: Int
        public var conversion: Double?
        /// Wilson interval of the conversion.
        public var interval: ConfidenceInterval?
        public var viewed: Int
        public var skipped: Int
        /// skipped / viewed.
        public var skipRate: Double?
        public var timeOnStep: DurationSummary
    }

    /// One row: a step, or completion.
    public struct Row: Sendable, Hashable, Codable {
        public var step: String
        public var a: CohortRow
        public var b: CohortRow
        /// Conversion B − A.
        public var difference: Double?
        /// Newcombe's interval of the difference.
        public var differenceInterval: ConfidenceInterval?
        public var z: Double?
        public var pValue: Double?
        /// Holm-adjusted across the rows.
        public var adjustedPValue: Double?
        public var significant: Bool
        /// Fell by more than the gate's threshold, significantly.
        public var regression: Bool
        /// Skip rate B − A, its interval and z-test p-value.
        public var skipRateDifference: Double?
        public var skipRateInterval: ConfidenceInterval?
        public var skipRatePValue: Double?
        /// Median time on step B − A (seconds) and the Mann-Whitney p-value.
        public var timeOnStepMedianDifference: Double?
        public var timeOnStepPValue: Double?
        /// Sessions per cohort needed to detect the detectable drop.
        public var requiredPerCohort: Int?
        /// A cohort has fewer entered sessions than that.
        public var underpowered: Bool
    }

    /// A cohort's definition and size.
    public struct CohortSummary: Sendable, Hashable, Codable {
        /// The cohort's definition, e.g. `appVersion = 2.4` or `started 2026-01-01T00:00:00Z – …`.
        public var cohort: String
        public var started: Int
        public var inProgress: Int
    }

    public var flowID: String
    public var flowVersion: Int
    public var a: CohortSummary
    public var b: CohortSummary
    public var windowSeconds: Double
    public var inactivitySeconds: Double
    public var reportEnd: Date
    public var alpha: Double
    public var level: Double
    public var power: Double
    /// The gate's threshold (fraction), if any.
    public var regressionThreshold: Double?
    /// The drop the sample-size warnings are about (fraction).
    public var detectableDrop: Double
    /// Rows in Holm's family.
    public var comparisons: Int
    public var rows: [Row]
    /// Steps (or "completion") flagged as regressions.
    public var regressions: [String]
    /// With a gate: no regression. Without one: `nil`.
    public var passed: Bool?
    /// Sample-size and data warnings, for people.
    public var warnings: [String]
    /// The tests used, in words.
    public var methods: String
    /// How `adjusted_p_value` corrects across the rows: Holm (the default) or Benjamini–Hochberg.
    public var correction: MultipleComparisonCorrection = .holm
}

extension ComparisonReport {
    /// The row name of flow completion.
    public static let completionRow = "(completion)"

    /// The methods line every rendering carries.
    public static let methodsText =
        "conversion from the previous step (completion: among sessions not in progress), Wilson intervals; "
        + "difference B − A with Newcombe's interval; two-proportion z-test, Holm-adjusted across rows; "
        + "skip rate: z-test; time on step: medians and the Mann-Whitney U test (normal approximation, "
        + "tie- and continuity-corrected); sample size: Fleiss at alpha / rows"

    /// ``methodsText`` with the correction used.
    public static func methods(_ correction: MultipleComparisonCorrection) -> String {
        correction == .holm
            ? methodsText : methodsText.replacingOccurrences(of: "Holm-adjusted", with: "Benjamini–Hochberg-adjusted")
    }

}
