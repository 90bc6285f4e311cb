import Foundation

/// What units did after dropping out of a flow, or between two of its steps: their most common
/// sequences of next events.
///
/// - **after drop** (`--after-drop [--step S]`): units the flow funnel counts as dropped (at S);
///   their path is the person's next events after the unit's last event of the flow, in any
///   session and any flow, within the window after it, up to `depth` events. A path shorter than
///   `depth` ends with `(end)`: nothing more happened within the window.
/// - **between** (`--between A,B`): units whose onboarding session viewed A and later B; their
///   path is the session's events strictly between the first view of A and the first view of B
///   after it (`(nothing)` when none came between), up to `depth`.
///
/// An event reads `kind:name`: `step_viewed:consent` (`flow/step` for another flow's steps),
/// `feature_used:share`, `custom:opened`, `session_started:login` (a new session of that flow).
/// Shares are of all the units followed. Nodes count units per event and position, transitions, per position, how many units went
/// from one event to the next (the flow chart); beyond the eight most common events of a
/// position, events are counted together as `(other)`.
public struct PathReport: Sendable, Hashable, Codable {
    /// One sequence and how many units followed it.
    public struct Path: Sendable, Hashable, Codable {
        public var events: [String]
        public var units: Int
        /// units / the units followed.
        public var share: Double
    }

    /// Units that went from one event at position `step` to another at `step + 1`.
    public struct Transition: Sendable, Hashable, Codable {
        /// 1-based position of `from` in the path.
        public var step: Int
        public var from: String
        public var to: String
        public var units: Int
    }

    /// Units at one event at position `step` (1-based).
    public struct Node: Sendable, Hashable, Codable {
        public var step: Int
        public var event: String
        public var units: Int
    }

    public var flowID: String
    public var unit: FunnelOptions.Unit
    /// `after_drop` or `between`.
    public var mode: String
    /// The step dropped at (after drop), when given.
    public var step: String?
    /// The two steps (between).
    public var between: [String]?
    public var depth: Int
    public var windowSeconds: Double
    public var since: Date?
    public var until: Date?
    /// Units followed: dropped (at the step), or that went from A to B.
    public var units: Int
    /// Distinct paths among them.
    public var distinctPaths: Int
    /// The most common paths, most common first (ties by events).
    public var paths: [Path]
    /// Units per event and position over every path (the flow chart's boxes).
    public var nodes: [Node]
    public var transitions: [Transition]
}
