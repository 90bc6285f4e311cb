import Foundation

/// How a flow funnel counts.
public struct FunnelOptions: Sendable, Hashable {
    /// What one row of the funnel counts.
    public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
        /// Each session once (the default).
        case session
        /// Each user once: a user reached a step if any of their sessions did.
        case user
    }

    /// Sessions or users.
    public var unit: Unit = .session
    /// Only events within this long after a session's start count (completion included). Default 7 days.
    public var window: TimeInterval = 7 * 86_400
    /// A session without completion whose last activity is at least this long before the report's
    /// end has dropped; a more recent one is in progress. Default 30 minutes.
    public var inactivity: TimeInterval = 30 * 60
    /// Sessions that started at or after this instant; `nil` for all.
    public var since: Date?
    /// Sessions that started before this instant; `nil` for all. Also the default report end.
    public var until: Date?
    /// The instant the report describes ("now"); defaults to `until`, else the clock passed to the build.
    public var reportEnd: Date?
    /// Breakdown: a context attribute name, or `variant:EXPERIMENT` for experiment variants.
    public var breakdown: String?

    /// Default options.
    public init() {}
}
