/// Why a highlight went away, in Apple TipKit's vocabulary (`Tips.InvalidationReason`) with one
/// difference: ``closed`` is TipKit's `tipClosed`. Stored as `properties.reason`.
public enum DismissReason: String, Codable, Sendable, CaseIterable {
    /// The user did what the highlight suggested (TipKit's `actionPerformed`).
    case actionPerformed
    /// The user closed it (TipKit's `tipClosed`).
    case closed
    /// It had been shown as often as allowed (TipKit's `displayCountExceeded`).
    case displayCountExceeded
    /// It had been shown for as long as allowed (TipKit's `displayDurationExceeded`).
    case displayDurationExceeded
}
