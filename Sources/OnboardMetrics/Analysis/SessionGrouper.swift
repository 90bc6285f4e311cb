import Foundation

/// Turns a stream of events in (roughly) time order into complete sessions, holding only the
/// sessions still open.
///
/// Clock skew is corrected per session, not per event: one app's clock is off by one amount,
/// while each event's `received_at - sent_at` also holds its own network delay. So every event's
/// client time is shifted by the session's smallest `received_at - sent_at` (its clock offset
/// plus the shortest delay), which puts the session at server time and keeps the app's own
/// order and durations — the Segment/Snowplow correction without reordering events sent in
/// different batches.
///
/// A session closes once the stream has moved `closeAfter` past its last event: no later event
/// of it is expected (the stream is in client time order, and `closeAfter` covers the longest gap
/// a report looks at, e.g. the conversion window). Memory is then what the open sessions need,
/// not what the whole stream holds.
public struct SessionGrouper {
    private struct Builder {
        var sessionID: UUID
        var userID: String
        var flowID: String?
        var flowVersion: Int?
        var context: [String: JSONValue] = [:]
        var events: [RecordedEvent] = []
        var lastStreamTime: Int64
        var active = true
        /// The smallest `received_at - sent_at` seen, microseconds.
        var offset: Int64?
        /// Whether the session's flow completed or was abandoned.
        var finished = false
    }

    private let closeAfter: Int64
    private let closeFinishedAfter: Int64?
    /// Finished sessions, in the order they finished: they close after `closeFinishedAfter`.
    private var finishedExpiry: [(slot: Int, sessionID: UUID, time: Int64)] = []
    private var finishedHead = 0
    private var index = SessionIndexTable()
    /// Slots of open sessions; a closed session's slot is inactive until reused.
    private var builders: [Builder] = []
    private var freeSlots: [Int] = []
    /// The slot of the session of the previous event: consecutive events often share a session.
    private var lastSessionID: UUID?
    private var lastSlot = 0
    /// Sessions in the order they may expire, each with the stream time it was queued at; an
    /// entry whose session moved on is re-queued when it reaches the front.
    private var expiry: [(slot: Int, sessionID: UUID, time: Int64)] = []
    private var expiryHead = 0
    private var watermark = Int64.min
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
    ///   - clockOffset: the event's `received_at - sent_at` in microseconds, when both are known.
    public mutating func add(
        sessionID: UUID, userID: String, streamTime: Int64, event: RecordedEvent, clockOffset: Int64? = nil,
        emit: (RecordedSession) throws -> Void
    ) rethrows {
        try add(
            sessionID: sessionID, userID: { userID }, streamTime: streamTime, event: event, clockOffset: clockOffset,
            emit: emit)
    }

    /// Adds an event; `userID` is asked for only when the event opens a session.
    mutating func add(
        sessionID: UUID, userID: () -> String, streamTime: Int64, event: RecordedEvent, clockOffset: Int64?,
        emit: (RecordedSession) throws -> Void
    ) rethrows {
        if streamTime > watermark { watermark = streamTime }
        let slot: Int
        if sessionID == lastSessionID {
            slot = lastSlot
        } else if let found = index.slot(of: sessionID) {
            slot = found
        } else {
            let builder = Builder(sessionID: sessionID, userID: userID(), lastStreamTime: streamTime)
            if let free = freeSlots.popLast() {
                slot = free
                builders[slot] = builder
            } else {
                slot = builders.count
                builders.append(builder)
            }
            index.insert(sessionID, slot: slot)
            expiry.append((slot, sessionID, streamTime))
            openCount += 1
            peakOpenCount = max(peakOpenCount, openCount)
        }
        lastSessionID = sessionID
        lastSlot = slot
        Self.append(event, streamTime: streamTime, to: &builders[slot])
        if closeFinishedAfter != nil, event.kind == .flowCompleted || event.kind == .flowAbandoned,
            event.flowID == nil || event.flowID == builders[slot].flowID, !builders[slot].finished
        {
            builders[slot].finished = true
            finishedExpiry.append((slot, sessionID, streamTime))
        }
        if let clockOffset, clockOffset < builders[slot].offset ?? .max { builders[slot].offset = clockOffset }
        try closeExpired(emit)
    }

    /// Closes every open session.
    public mutating func finish(_ emit: (RecordedSession) throws -> Void) rethrows {
        let remaining = builders.filter(\.active).sorted { $0.lastStreamTime < $1.lastStreamTime }
        builders.removeAll()
        freeSlots.removeAll()
        index = SessionIndexTable()
        expiry.removeAll()
        expiryHead = 0
        finishedExpiry.removeAll()
        finishedHead = 0
        openCount = 0
        lastSessionID = nil
        for builder in remaining { try emit(Self.session(builder)) }
    }

    private static func append(_ event: RecordedEvent, streamTime: Int64, to builder: inout Builder) {
        if event.kind == .sessionStarted {
            if case .object(let context) = event.properties["context"] { builder.context = context }
            if let flowID = event.flowID { builder.flowID = flowID }
            if let flowVersion = event.flowVersion { builder.flowVersion = flowVersion }
        } else if builder.flowID == nil, event.flowID != nil {
            builder.flowID = event.flowID
            builder.flowVersion = event.flowVersion
        }
        builder.events.append(event)
        if streamTime > builder.lastStreamTime { builder.lastStreamTime = streamTime }
    }

    private mutating func closeExpired(_ emit: (RecordedSession) throws -> Void) rethrows {
        if let closeFinishedAfter {
            while finishedHead < finishedExpiry.count,
                finishedExpiry[finishedHead].time + closeFinishedAfter < watermark
            {
                let entry = finishedExpiry[finishedHead]
                finishedHead += 1
                let builder = builders[entry.slot]
                guard builder.active, builder.sessionID == entry.sessionID else { continue }
                if builder.lastStreamTime + closeFinishedAfter < watermark {
                    try close(entry.slot, emit)
                } else {
                    finishedExpiry.append((entry.slot, entry.sessionID, builder.lastStreamTime))
                }
            }
            if finishedHead > 4096, finishedHead * 2 > finishedExpiry.count {
                finishedExpiry.removeFirst(finishedHead)
                finishedHead = 0
            }
        }
        guard closeAfter < Int64.max / 2 else { return }
        while expiryHead < expiry.count, expiry[expiryHead].time + closeAfter < watermark {
            let entry = expiry[expiryHead]
            expiryHead += 1
            let builder = builders[entry.slot]
            guard builder.active, builder.sessionID == entry.sessionID else { continue }
            if builder.lastStreamTime + closeAfter < watermark {
                try close(entry.slot, emit)
            } else {
                expiry.append((entry.slot, entry.sessionID, builder.lastStreamTime))
            }
        }
        if expiryHead > 4096, expiryHead * 2 > expiry.count {
            expiry.removeFirst(expiryHead)
            expiryHead = 0
        }
    }

    private mutating func close(_ slot: Int, _ emit: (RecordedSession) throws -> Void) rethrows {
        let builder = builders[slot]
        builders[slot].active = false
        builders[slot].events = []
        builders[slot].context = [:]
        freeSlots.append(slot)
        index.remove(builder.sessionID)
        if lastSessionID == builder.sessionID { lastSessionID = nil }
        openCount -= 1
        try emit(Self.session(builder))
    }

    private static func session(_ builder: Builder) -> RecordedSession {
        var events = builder.events
        if let offset = builder.offset, offset != 0 {
            for index in events.indices { events[index].time += offset }
        }
        return RecordedSession(
            sessionID: builder.sessionID, userID: builder.userID, flowID: builder.flowID,
            flowVersion: builder.flowVersion, context: builder.context, events: events)
    }
}
