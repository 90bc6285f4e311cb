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
    /// The last session's clock-offset runs, emptied: the next session's storage. Never handed
    /// out, so always reusable (a new array for every session was 2-3 % of a report's CPU).
    private var spareOffsets: [SessionGrouper.OffsetRun] = []
    /// The last session's events array, emptied, while no consumer keeps sessions: the next
    /// session fills memory the cache still holds (filling a new array for every session was
    /// the costliest store of a report read from the traces, `perf annotate`).
    private var spareEvents: [RecordedEvent] = []
    /// Whether the consumer keeps sessions (`SessionCache`), or kept one (a list of sessions):
    /// then each session gets an array of its own, trimmed to its events.
    private var sessionsKept: Bool

    /// - Parameter sessionsKept: whether the consumer keeps the sessions; one that does without
    ///   saying so is found out at its first session kept.
    init(closeAfter: Int64, closeFinishedAfter: Int64?, sessionsKept: Bool) {
        self.closeAfter = closeAfter
        self.closeFinishedAfter = closeFinishedAfter
        self.sessionsKept = sessionsKept
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
            swap(&current.events, &spareEvents)
            current.events.reserveCapacity(upTo)
            swap(&current.offsets, &spareOffsets)
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
        // outside --since/--until, or a longer session's array reused): given back, as the
        // session is kept.
        if sessionsKept, events.capacity > events.count + events.count / 8 + 1 {
            var exact: [RecordedEvent] = []
            exact.reserveCapacity(events.count)
            exact.append(contentsOf: events)
            events = exact
        }
        defer {
            done.offsets.removeAll(keepingCapacity: true)
            swap(&spareOffsets, &done.offsets)
        }
        // Closures, not `\.baseAddress`: that key-path literal was made at run time on every
        // call, twice a session (`swift_getKeyPath`, 2 % of a warm report's samples a thread).
        let storage = events.withUnsafeBufferPointer { $0.baseAddress }
        try emit(SessionGrouper.session(done, events: &events))
        guard !sessionsKept else { return }
        // Kept by the consumer, the array is shared, and emptying it makes a new one.
        events.removeAll(keepingCapacity: true)
        if events.withUnsafeBufferPointer({ $0.baseAddress }) == storage {
            spareEvents = events
        } else {
            sessionsKept = true
            spareEvents = []
        }
    }
}
