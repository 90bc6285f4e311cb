import Foundation

/// One recorded event: a line of the JSONL event format and a row of the `events` table.
///
/// The coding keys are the column names (`event_id`, `session_id`, ...); timestamps are ISO 8601
/// strings with milliseconds in UTC. See docs/EVENT_FORMAT.md.
public struct Event: Hashable, Sendable {
    /// Client-made UUIDv7; the dedupe key.
    public var eventID: UUID
    /// The session (one run of one user through one flow).
    public var sessionID: UUID
    /// The user.
    public var userID: String
    /// Position of the event within its session, from 1.
    public var seq: Int
    /// What happened.
    public var kind: EventKind
    /// The flow, for flow events.
    public var flowID: String?
    /// The flow's version.
    public var flowVersion: Int?
    /// The step, where relevant.
    public var stepID: String?
    /// Custom event name, highlight id, feature id or experiment key, depending on `kind`.
    public var name: String?
    /// When it happened, by the client's clock.
    public var occurredAt: Date
    /// When the client sent it (stamped at flush), by the client's clock.
    public var sentAt: Date?
    /// When the server received it; set by the server, or by the generator to the true time.
    public var receivedAt: Date?
    /// Further attributes.
    public var properties: [String: JSONValue]

    /// Creates an event.
    public init(
        eventID: UUID, sessionID: UUID, userID: String, seq: Int, kind: EventKind, flowID: String? = nil,
        flowVersion: Int? = nil, stepID: String? = nil, name: String? = nil, occurredAt: Date,
        sentAt: Date? = nil, receivedAt: Date? = nil, properties: [String: JSONValue] = [:]
    ) {
        self.eventID = eventID
        self.sessionID = sessionID
        self.userID = userID
        self.seq = seq
        self.kind = kind
        self.flowID = flowID
        self.flowVersion = flowVersion
        self.stepID = stepID
        self.name = name
        self.occurredAt = occurredAt
        self.sentAt = sentAt
        self.receivedAt = receivedAt
        self.properties = properties
    }

    /// Creates an event from a navigator's draft plus identity and clock readings.
    public init(
        _ draft: EventDraft, eventID: UUID, sessionID: UUID, userID: String, seq: Int, occurredAt: Date,
        sentAt: Date? = nil, receivedAt: Date? = nil
    ) {
        self.init(
            eventID: eventID, sessionID: sessionID, userID: userID, seq: seq, kind: draft.kind,
            flowID: draft.flowID, flowVersion: draft.flowVersion, stepID: draft.stepID, name: draft.name,
            occurredAt: occurredAt, sentAt: sentAt, receivedAt: receivedAt, properties: draft.properties)
    }

    /// The flow-relevant part of the event, for `FlowNavigator.observe(_:)`.
    public var draft: EventDraft {
        EventDraft(
            kind: kind, flowID: flowID, flowVersion: flowVersion, stepID: stepID, name: name, properties: properties)
    }

    /// The skew-corrected time (Segment/Snowplow): `received_at - (sent_at - occurred_at)`;
    /// `occurredAt` when either server or send time is unknown, or their difference is not a
    /// plausible clock offset (``ClockCorrection``).
    public var correctedTime: Date {
        guard let offset = ClockCorrection.offset(occurredAt: occurredAt, sentAt: sentAt, receivedAt: receivedAt)
        else { return occurredAt }
        return occurredAt.addingTimeInterval(Double(offset) / 1_000_000)
    }
}
