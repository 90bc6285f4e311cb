import Foundation

/// Turns a stream of events in (roughly) time order into complete sessions, holding only the
/// sessions still open.
///
/// A session closes once the stream has moved `closeAfter` past its last event: no later event
/// of it is expected (the stream is in client time order, and `closeAfter` covers the longest gap
/// a report looks at, e.g. the conversion window). Memory is then what the open sessions need,
/// not what the whole stream holds.
public struct SessionGrouper {
    private struct Builder {
        var userID: String
        var flowID: String?
        var flowVersion: Int?
        var context: [String: JSONValue] = [:]
        var events: [RecordedEvent] = []
        var lastStreamTime: Int64
    }

    private let closeAfter: Int64
    private var open: [UUID: Builder] = [:]
    /// Sessions in the order they may expire, each with the stream time it was queued at; an
    /// entry whose session moved on is re-queued when it reaches the front.
    private var expiry: [(UUID, Int64)] = []
    private var expiryHead = 0
    private var watermark = Int64.min
    /// Sessions open right now, and the most ever open at once.
    public private(set) var openCount = 0
    public private(set) var peakOpenCount = 0

    /// A grouper that closes a session `closeAfter` microseconds of stream time after its last event.
    public init(closeAfter: Int64) {
        self.closeAfter = closeAfter
    }

    /// Adds an event of a session; calls `emit` for each session this closes.
    /// - Parameters:
    ///   - streamTime: the stream's ordering time (the event id's time), microseconds since 1970.
    public mutating func add(
        sessionID: UUID, userID: String, streamTime: Int64, event: RecordedEvent,
        emit: (RecordedSession) throws -> Void
    ) rethrows {
        if streamTime > watermark { watermark = streamTime }
        if var builder = open[sessionID] {
            open[sessionID] = nil  // keep the builder uniquely referenced while it grows
            Self.append(event, to: &builder)
            builder.lastStreamTime = max(builder.lastStreamTime, streamTime)
            open[sessionID] = builder
        } else {
            var builder = Builder(userID: userID, lastStreamTime: streamTime)
            Self.append(event, to: &builder)
            open[sessionID] = builder
            expiry.append((sessionID, streamTime))
            openCount += 1
            peakOpenCount = max(peakOpenCount, openCount)
        }
        try closeExpired(emit)
    }

    /// Closes every open session.
    public mutating func finish(_ emit: (RecordedSession) throws -> Void) rethrows {
        for (sessionID, builder) in open.sorted(by: { $0.value.lastStreamTime < $1.value.lastStreamTime }) {
            try emit(Self.session(sessionID, builder))
        }
        open.removeAll()
        expiry.removeAll()
        expiryHead = 0
        openCount = 0
    }

    private static func append(_ event: RecordedEvent, to builder: inout Builder) {
        if event.kind == .sessionStarted {
            if case .object(let context) = event.properties["context"] { builder.context = context }
            builder.flowID = event.flowID ?? builder.flowID
            builder.flowVersion = event.flowVersion ?? builder.flowVersion
        } else if builder.flowID == nil, event.flowID != nil {
            builder.flowID = event.flowID
            builder.flowVersion = event.flowVersion
        }
        builder.events.append(event)
    }

    private mutating func closeExpired(_ emit: (RecordedSession) throws -> Void) rethrows {
        guard closeAfter < Int64.max / 2 else { return }
        while expiryHead < expiry.count, expiry[expiryHead].1 + closeAfter < watermark {
            let (sessionID, _) = expiry[expiryHead]
            expiryHead += 1
            guard let builder = open[sessionID] else { continue }
            if builder.lastStreamTime + closeAfter < watermark {
                open[sessionID] = nil
                openCount -= 1
                try emit(Self.session(sessionID, builder))
            } else {
                expiry.append((sessionID, builder.lastStreamTime))
            }
        }
        if expiryHead > 4096, expiryHead * 2 > expiry.count {
            expiry.removeFirst(expiryHead)
            expiryHead = 0
        }
    }

    private static func session(_ sessionID: UUID, _ builder: Builder) -> RecordedSession {
        RecordedSession(
            sessionID: sessionID, userID: builder.userID, flowID: builder.flowID, flowVersion: builder.flowVersion,
            context: builder.context, events: builder.events)
    }
}
