import Foundation
import OnboardMetricsSDK

/// One session as recorded: who, which flow, the context known at start, and its events ordered
/// by (skew-corrected time, seq) — the input of every replay-based report.
public struct RecordedSession: Sendable, Hashable {
    /// The session.
    public var sessionID: UUID
    /// The user.
    public var userID: String
    /// The flow the session started (from `session_started`, else its first flow event).
    public var flowID: String?
    /// That flow's version.
    public var flowVersion: Int?
    /// Attributes known at start (`session_started`'s `properties.context`).
    public var context: [String: JSONValue]
    /// The events, ordered by (time, seq); times are skew-corrected per session (see ``SessionGrouper``).
    public var events: [RecordedEvent]

    /// Creates a session; `events` are put in (time, seq) order. When none has a `seq` (all 0, as
    /// Segment's and PostHog's messages are stored), they are numbered 1…n in that order.
    public init(
        sessionID: UUID, userID: String, flowID: String?, flowVersion: Int?, context: [String: JSONValue],
        events: [RecordedEvent]
    ) {
        self.sessionID = sessionID
        self.userID = userID
        self.flowID = flowID
        self.flowVersion = flowVersion
        self.context = context
        // Streams arrive nearly in order: check before paying for a sort. By index, since zipping
        // the events copied each one twice (retaining its strings and properties).
        let ordered = events.indices.dropFirst().allSatisfy {
            (events[$0 - 1].time, events[$0 - 1].seq) <= (events[$0].time, events[$0].seq)
        }
        self.events = ordered ? events : events.sorted { ($0.time, $0.seq) < ($1.time, $1.seq) }
        // Segment and PostHog send no position within a session, so their events are stored with
        // seq 0 ("not known"). Number them here, in (time, arrival) order, so every report sees
        // seq as the event format documents it: from 1, no gaps.
        if let first = self.events.first, first.seq == 0, self.events.allSatisfy({ $0.seq == 0 }) {
            for index in self.events.indices { self.events[index].seq = index + 1 }
        }
    }

    /// Time of the first event, microseconds since 1970.
    public var startTime: Int64 { events.first?.time ?? 0 }
    /// Time of the last event, microseconds since 1970.
    public var lastTime: Int64 { events.last?.time ?? 0 }

    /// The variant this session was exposed to in an experiment, if any (its first exposure).
    public func variant(of experiment: String) -> String? {
        events.first { $0.kind == .experimentExposure && $0.name == experiment }?.properties["variant"]?.stringValue
    }

    /// Groups events held in memory into sessions (by stream order: event id), as the database
    /// reader does. For tests and small files; reports over a database use ``SessionReader``.
    public static func group(_ events: [Event]) -> [RecordedSession] {
        var grouper = SessionGrouper(closeAfter: .max)
        var sessions: [RecordedSession] = []
        for event in events.sorted(by: { $0.eventID.isBefore($1.eventID) }) {
            var recorded = RecordedEvent(event)
            recorded.time = RecordedEvent.microseconds(event.occurredAt)
            let offset = ClockCorrection.offset(
                occurredAt: event.occurredAt, sentAt: event.sentAt, receivedAt: event.receivedAt)
            grouper.add(
                sessionID: event.sessionID, userID: event.userID, streamTime: recorded.time, event: recorded,
                clockOffset: offset
            ) { sessions.append($0) }
        }
        grouper.finish { sessions.append($0) }
        return sessions.sorted { $0.sessionID.isBefore($1.sessionID, start: $0.startTime, otherStart: $1.startTime) }
    }
}
