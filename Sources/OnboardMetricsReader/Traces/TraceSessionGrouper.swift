import Foundation

/// Groups the events of one session id handed over whole and in stream order (a session trace)
/// into the sessions a ``SessionGrouper`` makes of them, without its bookkeeping for many open
/// sessions (an index, expiry queues, slots): per session that bookkeeping cost about as much as
/// decoding its events.
///
/// Why the result is the grouper's: with the stream time never going back (``TraceReader`` reads
/// traces only when every event id is a UUIDv7), the grouper closes a session only where a gap
/// between two of its own events exceeds the closing time — the grouper's own
/// `Builder.isCut(at:closeAfter:closeFinishedAfter:)`, applied here too — and the session's fields,
/// flow end, clock correction and order come from the grouper's `Builder.add` and
/// ``SessionGrouper/session(_:events:)``.
/// Sessions without a session id (``DerivedSessionID``) are cut by time instead, and still go
/// through a ``SessionGrouper``.
struct TraceSessionGrouper {
    private let closeAfter: Int64
    private let closeFinishedAfter: Int64?
    private var sessionID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    private var builder: SessionGrouper.Builder?

    init(closeAfter: Int64, closeFinishedAfter: Int64?) {
        self.closeAfter = closeAfter
        self.closeFinishedAfter = closeFinishedAfter
    }

    /// Starts the events of `sessionID` (after ``finish(_:)`` of the previous one).
    mutating func start(_ sessionID: UUID) {
        self.sessionID = sessionID
    }

    /// Adds the session's next event in stream order; `userID` is asked for when the event opens
    /// a session. Emits the session before it when the gap cuts it.
    /// - Parameter upTo: how many events are left in the trace, this one included: a session
    ///   this event opens makes room for them at once. Grown by doubling instead, a session of 12
    ///   events held room for 16, and a long-running process keeps every session (`SessionCache`).
    mutating func add(
        streamTime: Int64, event: consuming RecordedEvent, clockOffset: Int64?, upTo: Int, userID: () -> String,
        emit: (RecordedSession) throws -> Void
    ) rethrows {
        if builder?.isCut(at: streamTime, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter) == true {
            try finish(emit)
        }
        var current: SessionGrouper.Builder
        if let open = builder.take() {
            current = open
        } else {
            current = SessionGrouper.Builder(sessionID: sessionID, userID: userID(), lastStreamTime: streamTime)
            current.events.reserveCapacity(upTo)
        }
        _ = current.add(event, streamTime: streamTime, clockOffset: clockOffset, closeFinishedAfter: closeFinishedAfter)
        builder = current
    }

    /// Emits the session under way, if any.
    mutating func finish(_ emit: (RecordedSession) throws -> Void) rethrows {
        guard var done = builder.take() else { return }
        var events: [RecordedEvent] = []
        swap(&events, &done.events)
        // The room left over where the trace went on past this session (cut by a gap, or events
        // outside --since/--until): given back, as the session may be kept for long.
        if events.capacity > events.count + events.count / 8 + 1 {
            var exact: [RecordedEvent] = []
            exact.reserveCapacity(events.count)
            exact.append(contentsOf: events)
            events = exact
        }
        try emit(SessionGrouper.session(done, events: &events))
    }
}
