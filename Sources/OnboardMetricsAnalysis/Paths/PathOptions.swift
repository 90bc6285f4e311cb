import Foundation
import OnboardMetricsReader

/// What a paths report follows (``PathReport``).
public struct PathOptions: Sendable, Hashable {
    /// Which events a unit's path is made of.
    public enum Mode: Sendable, Hashable {
        /// After a dropped unit's last event of the flow (with `step`: units that dropped there).
        case afterDrop(step: String?)
        /// Between the first view of one step and the next view of another, in the same session.
        case between(String, String)

        /// `A,B` as `--between` and the dashboard's `between` take it (spaces around the ids
        /// allowed); `nil` unless it is two non-empty step ids.
        public init?(between text: String) {
            let steps = text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard steps.count == 2, steps.allSatisfy({ !$0.isEmpty }) else { return nil }
            self = .between(steps[0], steps[1])
        }
    }

    public var mode: Mode = .afterDrop(step: nil)
    /// Sessions (default) or users; the events followed after a drop are the person's, in any session.
    public var unit: FunnelOptions.Unit = .session
    /// Events per path. Default 3.
    public var depth = 3
    /// Paths listed, most common first. Default 10.
    public var top = 10
    /// Conversion window of the flow funnel (which decides who dropped) and how long after the drop
    /// events are followed. Default 7 days.
    public var window: TimeInterval = 7 * 86_400
    /// The flow funnel's inactivity timeout. Default 30 minutes.
    public var inactivity: TimeInterval = 30 * 60
    /// Onboarding sessions that started at or after this instant; `nil` for all.
    public var since: Date?
    /// Onboarding sessions that started before this instant (also the funnel's report end); `nil` for all.
    public var until: Date?

    /// Default options.
    public init() {}

    /// A reader of the events from `since` to `until` plus twice the window: a unit's onboarding
    /// (one window) and what follows its drop (another).
    public var reader: SessionReader {
        SessionReader(
            since: since, until: until.map { $0.addingTimeInterval(2 * window) }, closeAfter: window + inactivity)
    }
}
