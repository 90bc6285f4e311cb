/// The kind of an event: the vocabulary of DESIGN.md plus `custom` for named application events.
///
/// The raw value is the snake_case name stored in the `kind` column and the JSONL `kind` field.
public enum EventKind: String, Codable, Sendable, CaseIterable {
    case sessionStarted = "session_started"
    case stepViewed = "step_viewed"
    case stepCompleted = "step_completed"
    case stepSkipped = "step_skipped"
    case stepBack = "step_back"
    case highlightShown = "highlight_shown"
    case highlightDismissed = "highlight_dismissed"
    case featureUsed = "feature_used"
    case flowCompleted = "flow_completed"
    case flowAbandoned = "flow_abandoned"
    case experimentExposure = "experiment_exposure"
    case custom = "custom"

    /// Whether the event moves a session along its flow (and so is checked by replay).
    public var isStepEvent: Bool {
        switch self {
        case .stepViewed, .stepCompleted, .stepSkipped, .stepBack: true
        default: false
        }
    }
}
