import OnboardMetricsSDK

extension EventRecorder: EventSink {
    /// Records the events of one move: all are validated before any is queued, so an invalid one
    /// leaves the others unrecorded too.
    public func record(contentsOf events: [Event]) throws {
        let now = configuration.clock()
        for event in events { try validator.validate(event, now: now) }
        for event in events { try record(event) }
    }
}
