import Foundation
import OnboardMetricsSDK

/// A session as a ``ClassifyingSessionConsumer`` takes it: what a ``RecordedSession`` says of
/// the session, and its events' times, `seq`s and classes in (time, seq) order.
package struct ClassifiedSession: Sendable {
    /// One event: 24 bytes, no references.
    package struct Event: Sendable {
        /// Skew-corrected time, microseconds since 1970 (``RecordedEvent/time``).
        package var time: Int64
        /// ``ClassifyingSessionConsumer/eventClass(kind:flowID:stepID:name:properties:)`` of the event.
        package var eventClass: UInt64
        /// ``RecordedEvent/seq``.
        package var seq: Int32
    }

    /// The session.
    package var sessionID: UUID
    /// The user (after person links), or nil when the consumer does not read users.
    package var userID: String?
    /// ``RecordedSession/flowID``.
    package var flowID: String?
    /// ``RecordedSession/flowVersion``.
    package var flowVersion: Int?
    /// ``RecordedSession/context``: one storage per distinct context on a reading thread, as
    /// decoded sessions share it.
    package var context: [String: JSONValue]
    /// The events.
    package var events: [Event]

    /// Time of the first event (``RecordedSession/startTime``).
    package var startTime: Int64 { events.first?.time ?? 0 }
}
