import Foundation
import OnboardMetricsStatistics

/// Did people use a feature after a highlight (spotlight, tip) pointed at it?
///
/// Per highlight H of feature F (F from the events' `properties.feature`), over units (sessions,
/// or users with `--per user`):
/// - **shown**: units with a `highlight_shown` of H; the first showing is the unit's reference time.
/// - **already knew**: used F (`feature_used` named F) strictly before the first showing; they
///   leave the denominator. **eligible** = shown − already knew.
/// - **discovered**: eligible units that used F within the window after the first showing
///   (inclusive); **rate** = discovered / eligible, with a Wilson score interval.
/// - **time to discovery**: first showing → first such use (median, p90).
/// - **dismissed**: units by the reason of their first dismissal of H (TipKit's reasons; "(not
///   dismissed)" for none), each with its own discovery rate.
/// - **baseline** (organic rate): *comparable* units are those of the same flow — the flow(s) in
///   which H was shown at least once — that were never shown H. Their window starts at their
///   start (the session's first event; a user's first session); a unit counts when it used F
///   within it. A never-shown unit has no showing to be "before", so users who already knew F
///   stay in the baseline: the baseline is, if anything, high and the uplift conservative.
/// - **uplift** = rate − baseline rate, with Newcombe's hybrid score interval (method 10).
///
/// Per user, a user's sessions are merged (earliest showing, all feature uses, the flow of the
/// first session); the report then holds a small trace per user (highlights shown and feature-use
/// times, not events) until the read ends. Per session, nothing per unit is kept.
public struct DiscoveryReport: Sendable, Hashable, Codable {
    /// Units by the reason of their first dismissal.
    public struct ReasonRow: Sendable, Hashable, Codable {
        /// A TipKit reason (`actionPerformed`, `closed`, `displayCountExceeded`,
        /// `displayDurationExceeded`), another recorded reason, or "(not dismissed)".
        public var reason: String
        public var units: Int
        /// Those that did not already know the feature.
        public var eligible: Int
        public var discovered: Int
        /// discovered / eligible; `nil` when none are eligible.
        public var rate: Double?
    }

    /// The organic rate among comparable units never shown the highlight.
    public struct Baseline: Sendable, Hashable, Codable {
        /// The flows whose units are comparable (those in which the highlight was shown).
        public var flows: [String]
        public var units: Int
        /// Units that used the feature within the window after their start.
        public var used: Int
        public var rate: Double?
        public var interval: ConfidenceInterval?
    }

    /// The figures of one highlight.
    public struct HighlightRow: Sendable, Hashable, Codable {
        public var highlight: String
        /// The feature it points at; `nil` when no event said.
        public var feature: String?
        public var shown: Int
        public var alreadyKnew: Int
        /// shown − already knew: the denominator of the rate.
        public var eligible: Int
        public var discovered: Int
        public var rate: Double?
        /// Wilson score interval of the rate.
        public var interval: ConfidenceInterval?
        /// Seconds from the first showing to the first use, among discovered units.
        public var timeToDiscovery: DurationSummary
        public var dismissed: [ReasonRow]
        public var baseline: Baseline
        /// rate − baseline rate.
        public var uplift: Double?
        /// Newcombe's interval of the uplift.
        public var upliftInterval: ConfidenceInterval?
    }

    public var unit: FunnelOptions.Unit
    public var windowSeconds: Double
    public var level: Double
    public var since: Date?
    public var until: Date?
    /// Units counted (within the time range).
    public var units: Int
    /// By highlight id.
    public var highlights: [HighlightRow]
    /// The comparison with a randomized holdout (`--holdout`); `nil` without one.
    public var holdout: DiscoveryHoldout?
}
