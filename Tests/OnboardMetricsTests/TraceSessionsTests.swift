import Foundation
import Testing

@testable import OnboardMetricsReader

@Suite struct TraceSessionsTests {
    /// A session id's rows: `count` step views a second apart from `start` (seconds since 2000),
    /// their ids UUIDv7s of that time.
    static func rows(count: Int, from start: Int64, first id: UInt8) -> [SessionTrace.Row] {
        (0..<count).map { index in
            // A UUIDv7 of the event's time: the stream time a gap is measured in.
            let unixMilliseconds = UInt64(946_684_800 + start + Int64(index)) * 1_000
            let time = (0..<6).map { UInt8(truncatingIfNeeded: unixMilliseconds >> (40 - 8 * $0)) }
            let number = id &+ UInt8(index)
            return SessionTrace.Row(
                eventID: UUID(
                    uuid: (
                        time[0], time[1], time[2], time[3], time[4], time[5], 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, number
                    )),
                userID: Array("ada".utf8), seq: Int32(index + 1), kind: Array("step_viewed".utf8),
                flowID: Array("health-study".utf8), flowVersion: 1, stepID: Array("welcome".utf8), name: nil,
                occurred: (start + Int64(index)) * 1_000_000, sent: nil, received: nil, properties: nil)
        }
    }

    static func sessions(
        of rows: [SessionTrace.Row], closeAfter: Int64, sessionsKept: Bool = true
    ) throws -> [RecordedSession] {
        let trace = SessionTrace.encode(rows)
        var reader = TraceSessions(
            closeAfter: closeAfter, closeFinishedAfter: nil, people: nil, since: nil, until: nil,
            sessionsKept: sessionsKept)
        var sessions: [RecordedSession] = []
        let read = try trace.withUnsafeBytes { bytes in
            try reader.read(sessionID: UUID(), trace: bytes) { sessions.append($0) }
        }
        #expect(read == rows.count)
        return sessions
    }

    /// Sessions are kept for long by `funnel dashboard`: grown by doubling, 12 events held room
    /// for 16 (a third more memory than the events).
    @Test func aSessionHoldsRoomForItsEventsOnly() throws {
        for count in [1, 5, 12, 17, 100] {
            let sessions = try Self.sessions(of: Self.rows(count: count, from: 1_000, first: 1), closeAfter: 60_000_000)
            #expect(sessions.map(\.events.count) == [count])
            for session in sessions {
                #expect(session.events.capacity <= session.events.count + session.events.count / 8 + 1, "\(count)")
            }
        }
    }

    /// A trace cut into sessions by a gap: the first session was given room for the whole trace.
    @Test func aSessionCutFromALongerTraceGivesTheRestBack() throws {
        let rows = Self.rows(count: 9, from: 1_000, first: 1) + Self.rows(count: 30, from: 9_000, first: 50)
        let sessions = try Self.sessions(of: rows, closeAfter: 60_000_000)
        #expect(sessions.map(\.events.count) == [9, 30])
        for session in sessions {
            #expect(session.events.capacity <= session.events.count + session.events.count / 8 + 1)
        }
        #expect(sessions.map { $0.events.map(\.seq) } == [Array(1...9), Array(1...30)])
    }

    /// A consumer that keeps sessions without saying so: the array a session was read into is
    /// reused only while none is kept, so every kept session holds its own events, and after the
    /// first only room for them.
    @Test func aSessionKeptUnannouncedKeepsItsEvents() throws {
        let rows =
            Self.rows(count: 30, from: 1_000, first: 1) + Self.rows(count: 4, from: 9_000, first: 40)
            + Self.rows(count: 9, from: 17_000, first: 50) + Self.rows(count: 2, from: 25_000, first: 70)
        let sessions = try Self.sessions(of: rows, closeAfter: 60_000_000, sessionsKept: false)
        #expect(sessions.map { $0.events.map(\.seq) } == [Array(1...30), Array(1...4), Array(1...9), Array(1...2)])
        for session in sessions.dropFirst() {
            #expect(session.events.capacity <= session.events.count + session.events.count / 8 + 1)
        }
    }

    /// A consumer that only borrows each session: every trace's sessions are read into the same
    /// array, emptied in between, and each comes out with its own events, none of the last one's.
    @Test func sessionsLentOneAfterAnotherHoldOnlyTheirOwnEvents() throws {
        var reader = TraceSessions(closeAfter: 60_000_000, closeFinishedAfter: nil, people: nil, since: nil, until: nil)
        var seen: [[Int]] = []
        for (index, count) in [12, 3, 40, 1, 7].enumerated() {
            let trace = SessionTrace.encode(
                Self.rows(count: count, from: 1_000 + Int64(index) * 10_000, first: UInt8(index * 50)))
            _ = try trace.withUnsafeBytes { bytes in
                try reader.read(sessionID: UUID(), trace: bytes) { seen.append($0.events.map(\.seq)) }
            }
        }
        #expect(seen == [Array(1...12), Array(1...3), Array(1...40), [1], Array(1...7)])
    }

    /// Millions are kept: the fields are stored largest first, `seq` and the flow version in 32
    /// bits each, so an event takes 80 bytes.
    @Test func aRecordedEventTakes80Bytes() {
        #expect(MemoryLayout<RecordedEvent>.stride == 80)
    }

    /// `seq` and the flow version are kept in 32 bits, as the events table holds them: within
    /// that range they come back as given, beyond it clamped, and no flow version stays `nil`.
    @Test func seqAndFlowVersionKeepTheEventsTablesRange() {
        for value in [0, 1, -1, Int(Int32.max), Int(Int32.min)] {
            let event = RecordedEvent(kind: .stepViewed, flowVersion: value, time: 0, seq: value)
            #expect(event.seq == value && event.flowVersion == value)
        }
        var event = RecordedEvent(kind: .custom, time: 0, seq: Int(Int32.max) + 1)
        #expect(event.seq == Int(Int32.max) && event.flowVersion == nil)
        event.flowVersion = Int(Int32.min) - 1
        #expect(event.flowVersion == Int(Int32.min))
        event.flowVersion = nil
        #expect(event.flowVersion == nil && event == RecordedEvent(kind: .custom, time: 0, seq: Int(Int32.max)))
    }
}
