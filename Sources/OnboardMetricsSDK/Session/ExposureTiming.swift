/// When a session records that its user saw an experiment's variant (`experiment_exposure`).
///
/// Exposure is what an experiment report counts as "in the experiment": a user who quits before
/// the variant is on screen was never exposed to it, and counting them dilutes the difference.
public enum ExposureTiming: Sendable, Hashable {
    /// When the app calls ``OnboardingSession/exposed(to:)`` as it renders the variant (the
    /// default): users who leave before that are not counted as exposed.
    case whenSeen
    /// Right after `session_started`, for every assigned variant: for variants the app shows from
    /// the first screen on.
    case atStart
}
