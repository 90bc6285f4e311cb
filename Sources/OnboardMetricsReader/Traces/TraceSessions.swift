import Foundation
import OnboardMetricsSDK

/// Turns traces, one at a time, into the sessions a ``SessionGrouper`` makes of the same events
/// rows: the per-row work of ``TraceReader``. One value holds the decoder and the groupers, so a
/// trace is read inside one mutating call (the state a COPY callback captures is checked for
/// exclusive access on every use: once per trace here, not once per field of every event).
struct TraceSessions {
    private var decoder = TraceDecoder()
    private var grouper: TraceSessionGrouper
    /// Sessions without a session id are cut by time (DerivedSessionID): the full grouper.
    private var streams: SessionGrouper
    private let people: PersonLinks?
    private let since: UUID?
    private let until: UUID?
    /// The previous trace's cursor's string views, emptied: its storage for the next trace.
    private var cursorStorage: [UnsafeRawBufferPointer] = []

    /// - Parameter sessionsKept: whether the consumer keeps the sessions (``TraceSessionGrouper``).
    init(
        closeAfter: Int64, closeFinishedAfter: Int64?, people: PersonLinks?, since: UUID?, until: UUID?,
        sessionsKept: Bool = false
    ) {
        grouper = TraceSessionGrouper(
            closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter, sessionsKept: sessionsKept)
        streams = SessionGrouper(closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
        self.people = people
        self.since = since
        self.until = until
    }

    /// Emits the sessions of one trace's events in `[since, until)`.
    /// - Returns: the events read.
    mutating func read(
        sessionID: UUID, trace: UnsafeRawBufferPointer, emit: (RecordedSession) throws -> Void
    ) throws -> Int {
        var storage: [UnsafeRawBufferPointer] = []
        swap(&storage, &cursorStorage)
        var cursor = try TraceCursor(trace, storage: storage)
        defer { cursorStorage = cursor.takeStorage() }
        decoder.start(cursor)
        grouper.start(sessionID)
        let stream = DerivedSessionID.isStream(sessionID)
        var events = 0
        while try cursor.next() {
            if let since, cursor.eventID.isBefore(since) { continue }
            if let until, !cursor.eventID.isBefore(until) { continue }
            let (streamTime, event, offset) = try decoder.decode(cursor)
            // Asked for only when the event opens a session. It captures the user's string, not
            // the cursor: a cursor captured by a closure lived in a box on the heap, and every
            // step and read of it went through that box.
            let userNumber = cursor.userNumber
            let userBytes = cursor.userID
            let user = { [people] (decoder: inout TraceDecoder) -> String in
                let user = decoder.userID(number: userNumber, bytes: userBytes)
                return people.map { $0.person(of: user) } ?? user
            }
            if stream {
                try streams.add(
                    sessionID: sessionID, userID: { user(&decoder) }, streamTime: streamTime, event: consume event,
                    clockOffset: offset, emit: emit)
            } else {
                try grouper.add(
                    streamTime: streamTime, event: consume event, clockOffset: offset, upTo: cursor.eventsAfter + 1,
                    userID: { user(&decoder) }, emit: emit)
            }
            events += 1
        }
        try grouper.finish(emit)
        if stream { try streams.finish(emit) }
        return events
    }
}
