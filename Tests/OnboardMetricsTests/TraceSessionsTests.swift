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

    static func sessions(of rows: [SessionTrace.Row], closeAfter: Int64) throws -> [RecordedSession] {
        let trace = SessionTrace.encode(rows)
        var reader = TraceSessions(closeAfter: closeAfter, closeFinishedAfter: nil, people: nil, since: nil, until: nil)
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

    /// Millions are kept: the fields are stored largest first, so padding adds 1 byte, not 9.
    @Test func aRecordedEventTakes88Bytes() {
        #expect(MemoryLayout<RecordedEvent>.stride == 88)
    }
}
