import Foundation
import OnboardMetricsStatistics

/// Which events and context values go with completing an onboarding flow (or moving past one of
/// its steps), and which with dropping out — association, not cause.
///
/// Units (sessions, or users with `--per user`) of the flow are replayed as the funnel does.
/// **Successes** completed the flow within the window (for a step: viewed it and then completed
/// or skipped it, viewed a later step, or completed the flow); **failures** dropped; units still
/// in progress are left out (for a step, also those that never viewed it). Candidates are the
/// events a unit recorded within its window before its success (a failure: before its drop) —
/// by kind and name, the flow's own lifecycle and step events excluded — and its context values.
/// A candidate that every success and every failure has (the group's breakdown value, a step's
/// condition) is left out: it cannot differ between them.
///
/// For each candidate with `s` of the `S` successes and `f` of the `F` failures having it:
/// - **odds ratio** as PostHog, with a prior of one: `((s+1)·(F−f+1)) / ((S−s+1)·(f+1))`;
/// - **p-value**: Fisher's exact two-sided test of `[[s, S−s], [f, F−f]]`;
/// - **adjusted p-value**: corrected across the group's candidates (Benjamini–Hochberg or Holm);
///   an association is *significant* when it is below `alpha`.
///
/// Per user, a user's sessions are merged: the funnel state as the funnel merges it, the earliest
/// success, each event's earliest time, and the union of the sessions' context values.
public struct CorrelationReport: Sendable, Hashable, Codable {
    /// One candidate's counts and test.
    public struct Row: Sendable, Hashable, Codable {
        public var kind: CorrelationCandidate.Kind
        /// `kind:name` for events, `key=value` for context values.
        public var name: String
        /// Successes with it (`s`).
        public var successes: Int
        /// Failures with it (`f`).
        public var failures: Int
        /// `((s+1)·(F−f+1)) / ((S−s+1)·(f+1))`: above 1, it goes with success; below, with failure.
        public var oddsRatio: Double
        /// Fisher's exact two-sided p-value.
        public var pValue: Double
        /// The p-value corrected for the number of candidates tested.
        public var adjustedPValue: Double
        /// adjusted p-value < alpha.
        public var significant: Bool
    }

    /// The figures of one breakdown value (or of all units).
    public struct Group: Sendable, Hashable, Codable {
        /// The breakdown value; `nil` without a breakdown.
        public var breakdown: String?
        /// `S`.
        public var successes: Int
        /// `F`.
        public var failures: Int
        /// Left out: still in progress.
        public var inProgress: Int
        /// Left out: never viewed the step (0 without `--step`).
        public var notEntered: Int
        /// successes / (successes + failures); `nil` when both are 0.
        public var successShare: Double?
        /// How many candidates were tested (the size of the correction's family).
        public var candidatesTested: Int
        /// Significant associations, positive and negative.
        public var significant: Int
        /// Why the figures may mislead (too few units, a skewed sample).
        public var warnings: [String]
        /// Odds ratio above 1, the largest first (at most `top`).
        public var positive: [Row]
        /// Odds ratio below 1, the smallest first (at most `top`).
        public var negative: [Row]
    }

    public var flowID: String
    public var flowVersion: Int
    /// The step the report is about; `nil` for the whole flow.
    public var step: String?
    public var unit: FunnelOptions.Unit
    public var windowSeconds: TimeInterval
    public var inactivitySeconds: TimeInterval
    public var since: Date?
    public var until: Date?
    public var reportEnd: Date
    public var breakdownBy: String?
    public var correction: MultipleComparisonCorrection
    public var alpha: Double
    /// The size of each list; 0 for all.
    public var top: Int
    /// The warning thresholds: fewer successes or failures than this.
    public var minimumUnits: Int
    /// The warning thresholds: a success share below this, or above 1 minus it.
    public var minimumShare: Double
    public var groups: [Group]
    /// Sessions of other flows passed over.
    public var otherFlowSessions: Int
}
