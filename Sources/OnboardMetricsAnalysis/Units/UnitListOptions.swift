import Foundation
import OnboardMetricsReader

/// Which units a unit list holds (``UnitListReport``).
public struct UnitListOptions: Sendable, Hashable {
    /// What the units did, at a step or in the flow.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Viewed the step (without a step: started the flow).
        case viewed
        /// Completed the step (without a step: the flow).
        case completed
        /// Skipped the step (needs a step).
        case skipped
        /// Dropped there: their last step viewed (without a step: dropped anywhere).
        case dropped
        /// Still in progress there (without a step: anywhere).
        case inProgress = "in_progress"
    }

    /// Sessions (default) or users (a person's sessions merged as `funnel report --per user` merges them).
    public var unit: FunnelOptions.Unit = .session
    /// The step the status is about; `nil` for the flow as a whole.
    public var step: String?
    public var status: Status = .dropped
    /// The flow funnel's conversion window. Default 7 days.
    public var window: TimeInterval = 7 * 86_400
    /// The flow funnel's inactivity timeout. Default 30 minutes.
    public var inactivity: TimeInterval = 30 * 60
    /// Sessions that started at or after this instant; `nil` for all.
    public var since: Date?
    /// Sessions that started before this instant (also the report end); `nil` for all.
    public var until: Date?

    /// Default options.
    public init() {}

    /// The flow funnel's reader: events up to `until` plus the window.
    public var reader: SessionReader {
        SessionReader(
            since: since, until: until.map { $0.addingTimeInterval(window) }, closeAfter: window + inactivity,
            closeFinishedAfter: inactivity)
    }
}
