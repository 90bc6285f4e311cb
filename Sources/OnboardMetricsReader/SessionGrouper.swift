import Foundation
import OnboardMetricsSDK

/// Turns a stream of events in (roughly) time order into complete sessions, holding only the
/// sessions still open.
///
/// Clock skew is corrected per session (``ClockCorrection``): one app's clock is off by one
/// amount, while each message's `received_at - sent_at` also holds its own network delay. So each
/// event's client time is shifted by the smallest of its session's offsets that lies within
/// ``ClockCorrection/tolerance`` below its own (the clock offset plus the shortest delay), which
/// puts the session at server time and keeps the app's own order and durations — the
/// Segment/Snowplow correction without reordering events sent in different batches — while a
/// message whose offset is far from the session's clock (the group of offsets most messages agree
/// on, ``sessionClock(_:)``) takes the clock's shift: it moves nothing, not even its own events.
///
/// A session closes once the stream has moved `closeAfter` past its last event: no later event
/// of it is expected (the stream is in client time order, and `closeAfter` covers the longest gap
/// a report looks at, e.g. the conversion window). Memory is then what the open sessions need,
/// not what the whole stream holds.
public struct SessionGrouper {
    struct Builder {
        var sessionID: UUID
        var userID: String
        var flowID: String?
        var flowVersion: Int?
        var context: [String: JSONValue] = [:]
        var events: [RecordedEvent] = []
        var lastStreamTime: Int64
        var active = true
        /// The events' clock offsets in their order, run-length encoded (a batch's events share
        /// one): ``unknownOffset`` for events without a trusted one.
        var offsets: [OffsetRun] = []
        /// The smallest and largest trusted offsets, microseconds.
        var smallestOffset = Int64.max
        var largestOffset = Int64.min
        /// Whether the session's flow completed or was abandoned.
        var finished = false
        /// Whether the session was cut from a user's stream (``DerivedSessionID``): kept apart
        /// from a stored session that has the same id, as the trace reader keeps them.
        var derived = false

        /// Whether an event at `streamTime` starts a new session instead: the gap since this
        /// session's last event is longer than its closing time (`closeFinishedAfter`, when
        /// shorter, once its flow finished). The one cutting rule of every grouping.
        func isCut(at streamTime: Int64, closeAfter: Int64, closeFinishedAfter: Int64?) -> Bool {
            let after = finished ? min(closeAfter, closeFinishedAfter ?? closeAfter) : closeAfter
            return after < Int64.max / 2 && lastStreamTime + after < streamTime
        }

        /// Adds an event and its clock offset; returns whether the event just finished the
        /// session's flow (marked only when `closeFinishedAfter` is given).
        mutating func add(
            _ event: consuming RecordedEvent, streamTime: Int64, clockOffset: Int64?, closeFinishedAfter: Int64?
        ) -> Bool {
            let ends = event.kind == .flowCompleted || event.kind == .flowAbandoned
            let endedFlow = ends ? event.flowID : nil
            SessionGrouper.append(event, streamTime: streamTime, to: &self)
            var finishes = false
            if closeFinishedAfter != nil, ends, endedFlow == nil || endedFlow == flowID, !finished {
                finished = true
                finishes = true
            }
            SessionGrouper.appendOffset(clockOffset, to: &self)
            return finishes
        }
    }

    struct OffsetRun {
        var offset: Int64
        var count: Int
    }
    private static let unknownOffset = Int64.min

    /// Sessions in the order they may expire, each with the stream time it was queued at; an
    /// entry whose session moved on is re-queued when it reaches the front.
    private struct ExpiryQueue {
        struct Entry {
            var slot: Int
            var sessionID: UUID
            var time: Int64
        }
        private var entries: [Entry] = []
        private var head = 0

        mutating func push(_ entry: Entry) { entries.append(entry) }

        /// The front entry when it was queued before `limit`, removed from the queue.
        mutating func pop(queuedBefore limit: Int64) -> Entry? {
            guard head < entries.count, entries[head].time < limit else {
                if head > 4096, head * 2 > entries.count {
                    entries.removeFirst(head)
                    head = 0
                }
                return nil
            }
            head += 1
            return entries[head - 1]
        }

        mutating func removeAll() {
            entries.removeAll()
            head = 0
        }
    }

    private let closeAfter: Int64
    private let closeFinishedAfter: Int64?
    /// Finished sessions, in the order they finished: they close after `closeFinishedAfter`.
    private var finishedExpiry = ExpiryQueue()
    private var index = SessionIndexTable()
    /// The open sessions cut from users' streams: a stored session id may equal a derived one
    /// (a Segment or PostHog key is taken as the session when it parses as a UUID), and the two
    /// are separate sessions, as a trace reader, reading each id's trace alone, makes them.
    private var derivedIndex = SessionIndexTable()
    /// Slots of open sessions; a closed session's slot is inactive until reused.
    private var builders: [Builder] = []
    private var freeSlots: [Int] = []
    /// The slot of the session of the previous event: consecutive events often share a session.
    private var lastSessionID: UUID?
    private var lastDerived = false
    private var lastSlot = 0
    /// Every open session, in the order it may expire after `closeAfter`.
    private var expiry = ExpiryQueue()
    private var watermark = Int64.min
    /// Cuts the session streams of events that came without a session (``DerivedSessionID``).
    private var derived = DerivedSessionSplitter()
    /// Sessions open right now, and the most ever open at once.
    public private(set) var openCount = 0
    public private(set) var peakOpenCount = 0

    /// A grouper that closes a session `closeAfter` microseconds of stream time after its last
    /// event — or, when `closeFinishedAfter` is given, that long after its last event once its
    /// flow completed or was abandoned (for reports that ignore what follows the end of a flow,
    /// this keeps memory to the sessions still under way).
    public init(closeAfter: Int64, closeFinishedAfter: Int64? = nil) {
        self.closeAfter = closeAfter
        self.closeFinishedAfter = closeFinishedAfter
    }

    /// Adds an event of a session; calls `emit` for each session this closes.
    /// - Parameters:
    ///   - streamTime: the stream's ordering time (the event id's time), microseconds since 1970.
    ///   - event: the event, its `time` by the client's clock (`occurred_at`).
    ///   - clockOffset: the event's `received_at - sent_at` in microseconds, when it is a
    ///     plausible clock offset (``ClockCorrection/offset(occurred:sent:received:)``).
    public mutating func add(
        sessionID: UUID, userID: String, streamTime: Int64, event: RecordedEvent, clockOffset: Int64? = nil,
        emit: (RecordedSession) throws -> Void
    ) rethrows {
        try add(
            sessionID: sessionID, userID: { userID }, streamTime: streamTime, event: event, clockOffset: clockOffset,
            emit: emit)
    }

    /// Adds an event; `userID` is asked for only when the event opens a session.
    /// The event is consumed: it moves into its session's events without a copy (each copy of an
    /// event retains its strings and properties, a few percent of a report's CPU).
    mutating func add(
        sessionID: UUID, userID: () -> String, streamTime: Int64, event: consuming RecordedEvent, clockOffset: Int64?,
        emit: (RecordedSession) throws -> Void
    ) rethrows {
        var sessionID = sessionID
        let isDerived = DerivedSessionID.isStream(sessionID)
        if isDerived {
            (sessionID, event.seq) = derived.session(stream: sessionID, time: streamTime)
        }
        if streamTime > watermark { watermark = streamTime }
        var open: Int?
        if sessionID == lastSessionID, isDerived == lastDerived {
            open = lastSlot
        } else if let found = isDerived ? derivedIndex.slot(of: sessionID) : index.slot(of: sessionID) {
            open = found
        }
        // A gap longer than the session's closing time ends it, whether or not other sessions'
        // events fell in the gap: so a session is cut the same way when its shard's stream (or a
        // share of the buckets) is read alone as when the whole stream is.
        if let found = open,
            builders[found].isCut(at: streamTime, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
        {
            try close(found, emit)
            open = nil
        }
        let slot: Int
        if let open {
            slot = open
        } else {
            var builder = Builder(sessionID: sessionID, userID: userID(), lastStreamTime: streamTime)
            builder.derived = isDerived
            if let free = freeSlots.popLast() {
                slot = free
                builders[slot] = builder
            } else {
                slot = builders.count
                builders.append(builder)
            }
            if isDerived { derivedIndex.insert(sessionID, slot: slot) } else { index.insert(sessionID, slot: slot) }
            expiry.push(.init(slot: slot, sessionID: sessionID, time: streamTime))
            openCount += 1
            peakOpenCount = max(peakOpenCount, openCount)
        }
        lastSessionID = sessionID
        lastDerived = isDerived
        lastSlot = slot
        if builders[slot].add(
            event, streamTime: streamTime, clockOffset: clockOffset, closeFinishedAfter: closeFinishedAfter)
        {
            finishedExpiry.push(.init(slot: slot, sessionID: sessionID, time: streamTime))
        }
        try closeExpired(emit)
    }

    /// Closes every open session. The grouper is then as new (but for its allocations), so a
    /// trace reader runs one grouper over many sessions, one ``finish(_:)`` after each.
    public mutating func finish(_ emit: (RecordedSession) throws -> Void) rethrows {
        // The open slots' positions are sorted, not the builders: a sorted copy of every open
        // builder, beside the filtered one, was 33 MB of the peak at the end of a 10M-event read.
        var remaining: [Builder] = []
        swap(&remaining, &builders)
        let order = remaining.indices.filter { remaining[$0].active }.sorted {
            remaining[$0].lastStreamTime < remaining[$1].lastStreamTime
        }
        for slot in order { forget(remaining[slot]) }
        freeSlots.removeAll(keepingCapacity: true)
        watermark = Int64.min
        // Every stream's session is closed. A trace reader's streams come one trace each and in
        // no order of time, so its runs were never pruned: one entry a stream trace, for the read.
        derived = DerivedSessionSplitter()
        expiry.removeAll()
        finishedExpiry.removeAll()
        openCount = 0
        lastSessionID = nil
        defer {
            // The storage is kept for the next sessions (a trace reader finishes after each trace).
            remaining.removeAll(keepingCapacity: true)
            builders = remaining
        }
        for slot in order {
            var events: [RecordedEvent] = []
            swap(&events, &remaining[slot].events)
            try emit(Self.session(remaining[slot], events: &events))
        }
    }

    private static func append(_ event: consuming RecordedEvent, streamTime: Int64, to builder: inout Builder) {
        if event.kind == .sessionStarted {
            if case .object(let context) = event.properties["context"] { builder.context = context }
            if let flowID = event.flowID { builder.flowID = flowID }
            if let flowVersion = event.flowVersion { builder.flowVersion = flowVersion }
        } else if builder.flowID == nil, event.flowID != nil {
            builder.flowID = event.flowID
            builder.flowVersion = event.flowVersion
        }
        builder.events.append(consume event)
        if streamTime > builder.lastStreamTime { builder.lastStreamTime = streamTime }
    }

    private static func appendOffset(_ offset: Int64?, to builder: inout Builder) {
        let value = offset ?? unknownOffset
        if let last = builder.offsets.indices.last, builder.offsets[last].offset == value {
            builder.offsets[last].count += 1
        } else {
            builder.offsets.append(OffsetRun(offset: value, count: 1))
        }
        if let offset {
            if offset < builder.smallestOffset { builder.smallestOffset = offset }
            if offset > builder.largestOffset { builder.largestOffset = offset }
        }
    }

    private mutating func closeExpired(_ emit: (RecordedSession) throws -> Void) rethrows {
        if let closeFinishedAfter {
            while let entry = finishedExpiry.pop(queuedBefore: watermark - closeFinishedAfter) {
                // The slot may hold a newer, unfinished piece of the same session (cut by a gap in add).
                if builders[entry.slot].active, !builders[entry.slot].finished { continue }
                if let again = try closeOrRequeue(entry, after: closeFinishedAfter, emit) { finishedExpiry.push(again) }
            }
        }
        guard closeAfter < Int64.max / 2 else { return }
        while let entry = expiry.pop(queuedBefore: watermark - closeAfter) {
            if let again = try closeOrRequeue(entry, after: closeAfter, emit) { expiry.push(again) }
        }
    }

    /// Closes the entry's session if the stream has moved `after` past its last event; otherwise
    /// returns the entry to queue again at that last event. Stale entries (slot reused) vanish.
    private mutating func closeOrRequeue(
        _ entry: ExpiryQueue.Entry, after: Int64, _ emit: (RecordedSession) throws -> Void
    ) rethrows -> ExpiryQueue.Entry? {
        // Fields read one by one: a copy of the whole builder would share its events array.
        guard builders[entry.slot].active, builders[entry.slot].sessionID == entry.sessionID else { return nil }
        let last = builders[entry.slot].lastStreamTime
        guard last + after < watermark else {
            return .init(slot: entry.slot, sessionID: entry.sessionID, time: last)
        }
        try close(entry.slot, emit)
        return nil
    }

    /// Takes a closed session out of its index (the stored sessions' or the derived ones').
    private mutating func forget(_ builder: Builder) {
        if builder.derived { derivedIndex.remove(builder.sessionID) } else { index.remove(builder.sessionID) }
    }

    private mutating func close(_ slot: Int, _ emit: (RecordedSession) throws -> Void) rethrows {
        // Moved out, not copied, so the clock-offset shift below happens in place.
        var events: [RecordedEvent] = []
        swap(&events, &builders[slot].events)
        let builder = builders[slot]
        builders[slot].active = false
        builders[slot].context = [:]
        builders[slot].offsets = []
        freeSlots.append(slot)
        forget(builder)
        if lastSessionID == builder.sessionID, lastDerived == builder.derived { lastSessionID = nil }
        openCount -= 1
        try emit(Self.session(builder, events: &events))
    }

    /// The session of a builder whose events were moved into `events`.
    static func session(_ builder: Builder, events: inout [RecordedEvent]) -> RecordedSession {
        correctClocks(builder, events: &events)
        return RecordedSession(
            sessionID: builder.sessionID, userID: builder.userID, flowID: builder.flowID,
            flowVersion: builder.flowVersion, context: builder.context, events: events)
    }

    /// Shifts each event by its session's clock (``ClockCorrection``): the session's trusted offsets
    /// form groups chained within the tolerance (one clock seen through different network delays),
    /// and the group most messages agree on is the session's clock. An event of that group moves by
    /// the smallest offset within the tolerance below its own; an event of any other group moves by
    /// the clock's smallest offset, as the session's other events do, so a message far from the
    /// others (a forged `sent_at`) moves nothing, its own events included. Events without a
    /// trusted offset keep their client time.
    private static func correctClocks(_ builder: Builder, events: inout [RecordedEvent]) {
        guard builder.smallestOffset <= builder.largestOffset else { return }
        let runs = builder.offsets
        // Usually one offset, or offsets within the network's spread: one shift for every event.
        if builder.largestOffset - builder.smallestOffset <= ClockCorrection.tolerance,
            !runs.contains(where: { $0.offset == unknownOffset })
        {
            let shift = builder.smallestOffset
            if shift != 0 { for index in events.indices { events[index].time += shift } }
            return
        }
        let sorted = Array(Set(runs.lazy.map { $0.offset }.filter { $0 != unknownOffset })).sorted()
        let clock = sessionClock(sorted)
        guard !clock.isEmpty else { return }  // Not reached: a trusted offset was seen (the guard above).
        var index = 0
        for run in runs {
            defer { index += run.count }
            guard run.offset != unknownOffset else { continue }
            let shift: Int64
            if run.offset < sorted[clock.lowerBound] || run.offset > sorted[clock.upperBound - 1] {
                shift = sorted[clock.lowerBound]
            } else {
                // The first offset not below this one's lower bound: never above it, as it is in the
                // list, and within the clock's group, which no gap wider than the tolerance splits.
                var low = clock.lowerBound
                var high = clock.upperBound
                let bound = run.offset - ClockCorrection.tolerance
                while low < high {
                    let middle = (low + high) / 2
                    if sorted[middle] < bound { low = middle + 1 } else { high = middle }
                }
                shift = sorted[low]
            }
            if shift != 0 { for position in index..<(index + run.count) { events[position].time += shift } }
        }
    }

    /// The session's clock among its distinct trusted offsets (`sorted`, ascending, not empty): the
    /// positions of the group of offsets chained within the tolerance that holds the most of them
    /// (messages: a batch's events share one offset), ties to the group whose smallest offset is the
    /// smallest correction, then to the lower one. One message cannot outvote the app's others.
    static func sessionClock(_ sorted: [Int64]) -> Range<Int> {
        guard !sorted.isEmpty else { return 0..<0 }
        var best = 0..<0
        var start = 0
        for end in 1...sorted.count
        where end == sorted.count || sorted[end] - sorted[end - 1] > ClockCorrection.tolerance {
            let group = start..<end
            start = end
            guard !best.isEmpty else {
                best = group
                continue
            }
            let (size, bestSize) = (group.count, best.count)
            let (base, bestBase) = (sorted[group.lowerBound], sorted[best.lowerBound])
            if size > bestSize || (size == bestSize && base.magnitude < bestBase.magnitude) { best = group }
        }
        return best
    }
}
