import Foundation

/// The units (sessions or users) of a flow with a status at a step: who they are, to look at
/// their sessions, contact them or save them as a cohort.
///
/// A unit is listed when, replayed as the flow funnel replays it (`funnel report`), it viewed,
/// completed or skipped the step, or dropped or is in progress there (its last step viewed);
/// without a step, by the flow's outcome (viewed: every unit that started). Per user, a person's
/// sessions are merged as `funnel report --per user` merges them; the row names their first
/// session, and the count of their sessions.
public struct UnitListReport: Sendable, Hashable, Codable {
    /// One unit.
    public struct Row: Sendable, Hashable, Codable {
        /// The user id (per user: the person's id, ids linked by identify or alias merged).
        public var userID: String
        /// The session (per user: the person's first session of the flow).
        public var sessionID: UUID
        /// Sessions of the flow the unit is made of (1 per session).
        public var sessions: Int
        /// When the (first) session started.
        public var start: Date
        /// The unit's last event of the flow's sessions.
        public var lastEvent: Date
        /// The unit's outcome in the flow: completed, dropped or in_progress.
        public var outcome: String
    }

    public var flowID: String
    public var flowVersion: Int
    public var unit: FunnelOptions.Unit
    public var step: String?
    public var status: UnitListOptions.Status
    public var since: Date?
    public var until: Date?
    /// The instant in-progress versus dropped was decided at.
    public var reportEnd: Date
    /// Units listed.
    public var units: Int
    /// By start, then session id.
    public var rows: [Row]
}
