extension DismissReason {
    /// The reason for TipKit's `Tips.InvalidationReason` named `name` (its case name:
    /// `actionPerformed`, `tipClosed`, `displayCountExceeded`, `displayDurationExceeded`); `nil`
    /// for a name TipKit may add later. Platform-neutral, so the mapping is tested on Linux; the
    /// adapter that reads TipKit's own values is in `TipKit+OnboardMetrics.swift`.
    public init?(tipKitReasonName name: String) {
        switch name {
        case "actionPerformed": self = .actionPerformed
        // The one name that differs: TipKit's `tipClosed` is ``closed``.
        case "tipClosed": self = .closed
        case "displayCountExceeded": self = .displayCountExceeded
        case "displayDurationExceeded": self = .displayDurationExceeded
        default: return nil
        }
    }
}
