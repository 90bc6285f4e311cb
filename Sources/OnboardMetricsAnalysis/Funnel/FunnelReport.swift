import Foundation

/// A flow funnel: per step of a flow, how many sessions (or users) it applied to, viewed,
/// completed, skipped, dropped there; conversion; time on step and from start — per breakdown group.
///
/// Build it with ``FunnelReport/build(flow:sessions:options:now:)`` from sessions in memory, or
/// ``FunnelReport/build(flow:reader:connection:options:now:progress:)`` from the database. Render
/// it with ``table(group:)`` (text, CSV, Markdown) or encode it as JSON (stable snake_case keys,
/// documented in the README).
public struct FunnelReport: Sendable, Hashable, Codable {
    /// Counts and times of one step.
    public struct StepRow: Sendable, Hashable, Codable {
        public var step: String
        /// The step's condition, if it has one.
        public var condition: String?
        /// Units the step applied to (its condition held), among those not in progress.
        public var eligible: Int
        public var viewed: Int
        public var completed: Int
        public var skipped: Int
        /// Units that dropped with this step as the last one they viewed.
        public var droppedHere: Int
        /// Units in progress whose last viewed step is this one (not in the other counts).
        public var inProgressHere: Int
        /// Viewed, among eligible units that viewed the previous step that applied to them (or started, for the first).
        public var conversionFromPrevious: Double?
        /// Viewed, among eligible units.
        public var conversionFromStart: Double?
        /// From the (last) view to the completion or skip.
        public var timeOnStep: DurationSummary
        /// From the unit's start to the first view.
        public var timeFromStart: DurationSummary
    }

    /// Totals of one group.
    public struct Totals: Sendable, Hashable, Codable {
        public var started: Int
        public var completed: Int
        public var dropped: Int
        public var inProgress: Int
        /// Completed, among units not in progress; `nil` when there are none.
        public var completionRate: Double?
        /// Dropped before viewing any step.
        public var droppedBeforeFirstStep: Int
    }

    /// The funnel of one breakdown value (or of everyone, `breakdown` nil).
    public struct Group: Sendable, Hashable, Codable {
        public var breakdown: String?
        public var totals: Totals
        public var steps: [StepRow]
    }

    public var flowID: String
    public var flowVersion: Int
    public var unit: FunnelOptions.Unit
    public var windowSeconds: Double
    public var inactivitySeconds: Double
    public var since: Date?
    public var until: Date?
    /// The instant dropped and in progress were judged at.
    public var reportEnd: Date
    /// The breakdown property, if any.
    public var breakdownBy: String?
    public var groups: [Group]
    /// Sessions read that belong to other flows (not counted).
    public var otherFlowSessions: Int
}
