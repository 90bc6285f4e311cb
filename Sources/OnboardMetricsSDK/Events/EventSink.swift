/// Where an ``OnboardingSession`` sends the events it implies. ``EventRecorder`` is the sink that
/// writes to PostgreSQL; the HTTP transport (for apps that must not hold database credentials)
/// is another.
public protocol EventSink: Sendable {
    /// Accepts an event; must not wait for the network or the database.
    /// - Throws: `EventValidationError` for an invalid event, or the sink's own error.
    func record(_ event: Event) throws
}
