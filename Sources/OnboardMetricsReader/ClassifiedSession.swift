import Foundation

/// A session as a ``ClassifyingSessionConsumer`` takes it: its events' times, `seq`s and classes,
/// in (time, seq) order as a ``RecordedSession``'s.
package struct ClassifiedSession: Sendable {
    /// One event: 24 bytes, no references.
    package struct Event: Sendable, Hashable {
        /// Skew-corrected time, microseconds since 1970 (``RecordedEvent/time``).
        package var time: Int64
        /// ``ClassifyingSessionConsumer/eventClass(kind:stepID:name:properties:)`` of the event.
        package var eventClass: UInt64
        /// ``RecordedEvent/seq``.
        package var seq: Int32
    }

    /// The session.
    package var sessionID: UUID
    /// The user (after person links), or nil when the consumer does not read users.
    package var userID: String?
    /// The events.
    package var events: [Event]
}
