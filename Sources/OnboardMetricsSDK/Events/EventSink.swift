/// Where an ``OnboardingSession`` sends the events it implies. ``HTTPTransport`` sends them to a
/// collector; on a server, the OnboardMetrics library's `EventRecorder` writes them to PostgreSQL.
public protocol EventSink: Sendable {
    /// Accepts an event; must not wait for the network or the database.
    /// - Throws: `EventValidationError` for an invalid event, or the sink's own error.
    func record(_ event: Event) throws

    /// Accepts the events of one move together: either all of them or, when one is invalid or the
    /// sink takes no more, none. The default validates every event before recording any.
    /// - Throws: `EventValidationError` for the first invalid event, or the sink's own error.
    func record(contentsOf events: [Event]) throws
}

extension EventSink {
    public func record(contentsOf events: [Event]) throws {
        let validator = EventValidator()
        for event in events { try validator.validate(event, now: event.occurredAt) }
        for event in events { try record(event) }
    }
}
