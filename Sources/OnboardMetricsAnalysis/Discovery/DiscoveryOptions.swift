import Foundation
import OnboardMetricsReader

/// What a feature-discovery report counts.
public struct DiscoveryOptions: Sendable, Hashable {
    /// Sessions (default) or users; a user's sessions are merged (see ``DiscoveryReport``).
    public var unit: FunnelOptions.Unit = .session
    /// Feature use counts as discovery within this long after the first showing. Default 7 days.
    public var window: TimeInterval = 7 * 86_400
    /// Only this highlight; `nil` for every highlight that was shown.
    public var highlight: String?
    /// Units whose first session started at or after this instant; `nil` for all.
    public var since: Date?
    /// Units whose first session started before this instant; `nil` for all.
    public var until: Date?
    /// The experiment whose holdout variant is never shown the highlights (``DiscoveryHoldout``); `nil` for none.
    public var holdout: String?
    /// The holdout experiment's variant that is never shown them. Default `holdout`.
    public var holdoutVariant = "holdout"
    /// Confidence level of the intervals. Default 0.95.
    public var level = 0.95

    /// Default options.
    public init() {}

    /// A reader that sees what the report needs: events from `since` until `until` plus the
    /// window (feature use after a showing near `until` still counts), and sessions kept open
    /// across gaps as long as the window, since feature use may come days after the showing.
    public var reader: SessionReader {
        SessionReader(
            since: since, until: until.map { $0.addingTimeInterval(window) }, closeAfter: window + 3_600)
    }
}
