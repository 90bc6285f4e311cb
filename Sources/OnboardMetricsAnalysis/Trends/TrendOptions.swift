import Foundation

/// What `funnel trends` counts and how.
public struct TrendOptions: Sendable, Hashable {
    /// The period length.
    public var interval: TrendInterval = .week
    /// Window, inactivity, time range, report end and breakdown, as for the funnel report. The
    /// unit is always the session: a session belongs to the period it started in.
    public var funnel = FunnelOptions()
    /// A period is marked as mostly in progress when more than this share of its sessions are.
    public var inProgressThreshold = 0.5
    /// A period is marked provisional when at least this share of its sessions are in progress:
    /// its rate counts the fast finishers but not yet the slow ones, so it reads high.
    public var provisionalThreshold = 0.1
    /// Confidence level of the completion-rate intervals.
    public var level = 0.95

    /// Default options.
    public init() {}
}
