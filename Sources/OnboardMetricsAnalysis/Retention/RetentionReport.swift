import Foundation
import OnboardMetricsStatistics

/// Are people still active N days after onboarding, and does how onboarding went make a difference?
///
/// Per unit (a person, or with `--per session` an onboarding session):
/// - **start**: per person, the start of their first session of the flow in range (their sessions
///   merged as `funnel report --per user` merges them); per session, the session's start.
/// - **group**: the onboarding's outcome as the flow funnel decides it (completed, dropped, in
///   progress at the data's end), the variant of an experiment the unit was first exposed to, or the
///   onboarding session's flow version.
/// - **day N retained**: any event of the person (any session, any flow) in
///   [start + N days, start + N + 1 days).
/// - **eligible for day N**: the data's end (`--until`, else the newest event read) is at least
///   N + 1 days after the start, so day N was observed whole; others leave day N's denominator.
/// - **rate** = retained / eligible with a Wilson score interval; **difference** = a group's rate
///   minus the reference group's, with Newcombe's hybrid score interval.
///
/// The reference group is `dropped` by outcome (so a positive difference means completers stay
/// more), `control` (else the first name in order) by variant, and the lowest version by flow version.
public struct RetentionReport: Sendable, Hashable, Codable {
    /// One day of one group.
    public struct Day: Sendable, Hashable, Codable {
        public var day: Int
        /// Units observed for the whole of day N.
        public var eligible: Int
        /// Of those, units with an event on day N.
        public var retained: Int
        /// retained / eligible; `nil` when none are eligible.
        public var rate: Double?
        public var interval: ConfidenceInterval?
    }

    /// One group's units and days.
    public struct Group: Sendable, Hashable, Codable {
        public var group: String
        public var units: Int
        public var days: [Day]
    }

    /// A group's rate minus the reference group's on one day.
    public struct Difference: Sendable, Hashable, Codable {
        public var group: String
        public var reference: String
        public var day: Int
        /// `nil` when either group has no eligible unit that day.
        public var difference: Double?
        public var interval: ConfidenceInterval?
    }

    public var flowID: String
    public var unit: FunnelOptions.Unit
    /// `outcome`, `variant:EXPERIMENT` or `flow_version`.
    public var by: String
    public var days: [Int]
    public var since: Date?
    public var until: Date?
    /// The end of what was observed: `until`, else the newest event read (`nil`: no event).
    public var dataEnd: Date?
    public var level: Double
    /// Units counted over every group.
    public var units: Int
    /// People whose ids were merged are one unit; the number of sessions of other flows read is
    /// for the record only (they count as activity).
    public var otherFlowSessions: Int
    public var groups: [Group]
    public var differences: [Difference]
}
