/// The consent decisions of a ``ConsentGate`` as a value: what to do with a move's events, and
/// with the held ones when the answer changes. No I/O: the gate carries the actions out.
package struct ConsentStateMachine: Sendable, Hashable {
    /// What to do with a move's events.
    package enum RecordAction: Sendable, Hashable {
        /// Send these (possibly anonymised) to the sink.
        case forward([Event])
        /// Keep them on the device until the answer.
        case hold([Event])
        /// Drop them: consent was denied.
        case discard
    }

    /// What to do with the held events after a change of answer.
    package enum ChangeAction: Sendable, Hashable {
        /// Send the held events, in order, then forget them.
        case releaseHeld
        /// Forget the held events unsent.
        case discardHeld
        /// Nothing to do.
        case none
    }

    package private(set) var consent: Consent
    package let policy: ConsentPolicy

    package init(consent: Consent, policy: ConsentPolicy) {
        self.consent = consent
        self.policy = policy
    }

    /// The action for a move's events; `anonymousID` stands in for the user when the policy
    /// sends pending events anonymously.
    package func record(_ events: [Event], anonymousID: String) -> RecordAction {
        switch (consent, policy) {
        case (.granted, _): return .forward(events)
        case (.denied, _): return .discard
        case (.pending, .holdUntilGranted): return .hold(events)
        case (.pending, .anonymousWhilePending):
            return .forward(events.map { Self.anonymised($0, id: anonymousID) })
        }
    }

    /// Records a new answer; returns what becomes of the held events.
    package mutating func set(_ answer: Consent) -> ChangeAction {
        defer { consent = answer }
        switch answer {
        // Granted again still releases: a release the sink refused left the events held.
        case .granted: return .releaseHeld
        case .denied: return .discardHeld
        case .pending: return .none
        }
    }

    /// The event without what identifies the user: their id replaced, and only the properties
    /// its kind needs (a variant, a dismiss reason, a highlight's feature) kept.
    static func anonymised(_ event: Event, id: String) -> Event {
        var event = event
        event.userID = id
        let kept: Set<String> = ["variant", "reason", "feature"]
        event.properties = event.properties.filter { kept.contains($0.key) }
        return event
    }
}
