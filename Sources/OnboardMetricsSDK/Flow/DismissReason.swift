/// Why a highlight went away; Apple TipKit's vocabulary. Stored as `properties.reason`.
public enum DismissReason: String, Codable, Sendable, CaseIterable {
    /// The user did what the highlight suggested.
    case actionPerformed
    /// The user closed it.
    case closed
    /// It had been shown as often as allowed.
    case displayCountExceeded
    /// It had been shown for as long as allowed.
    case displayDurationExceeded
}
