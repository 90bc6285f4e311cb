import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK

@Suite struct SessionGrouperTests {
    static func event(_ kind: EventKind, _ time: Int64, seq: Int) -> RecordedEvent {
        RecordedEvent(
            kind: kind, flowID: "f", flowVersion: 1, stepID: kind == .stepViewed ? "s" : nil, time: time, seq: seq)
    }

    @Test func closesSessionsOnceTheStreamMovesPastThemAndKeepsFewOpen() {
        // 1,000 sessions one after another, 10 events each a second apart, closing 60 s after the last event.
        var grouper = SessionGrouper(closeAfter: 60_000_000)
        var emitted: [RecordedSession] = []
        for session in 0..<1_000 {
            let id = UUID()
            for seq in 0..<10 {
                let time = Int64(session * 10 + seq) * 1_000_000
                grouper.add(
                    sessionID: id, userID: "u\(session)", streamTime: time,
                    event: Self.event(seq == 0 ? .sessionStarted : .stepViewed, time, seq: seq)
                ) { emitted.append($0) }
            }
        }
        grouper.finish { emitted.append($0) }
        #expect(emitted.count == 1_000)
        #expect(emitted.allSatisfy { $0.events.count == 10 && $0.events.map(\.seq) == Array(0..<10) })
        #expect(Set(emitted.map(\.sessionID)).count == 1_000)
        // A session is open for its 10 s plus 60 s: 8 at once ideally. A session re-queued for
        // expiry waits behind younger ones, which can at most double that; never all 1,000.
        #expect(grouper.peakOpenCount >= 8)
        #expect(grouper.peakOpenCount <= 16)
    }

    @Test func interleavedSessionsAndOutOfOrderEventsComeOutSorted() {
        var grouper = SessionGrouper(closeAfter: .max)
        let a = UUID()
        let b = UUID()
        let stream: [(UUID, Int64, Int)] = [(a, 1, 0), (b, 2, 0), (a, 5, 2), (b, 3, 1), (a, 4, 1)]
        for (id, time, seq) in stream {
            grouper.add(sessionID: id, userID: "u", streamTime: time, event: Self.event(.stepViewed, time, seq: seq)) {
                _ in
            }
        }
        var sessions: [RecordedSession] = []
        grouper.finish { sessions.append($0) }
        let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0.sessionID, $0) })
        #expect(byID[a]?.events.map(\.seq) == [0, 1, 2])
        #expect(byID[b]?.events.map(\.seq) == [0, 1])
    }

    @Test func contextAndFlowComeFromSessionStarted() {
        var grouper = SessionGrouper(closeAfter: .max)
        let id = UUID()
        var started = Self.event(.sessionStarted, 1, seq: 0)
        started.properties = ["context": .object(["platform": "ios"])]
        grouper.add(sessionID: id, userID: "u", streamTime: 1, event: started) { _ in }
        var sessions: [RecordedSession] = []
        grouper.finish { sessions.append($0) }
        #expect(sessions.first?.context["platform"] == "ios")
        #expect(sessions.first?.flowID == "f")
    }

    @Test func finishedSessionsCloseAfterTheShortGrace() {
        // Sessions of 3 events one minute apart; every other one completes. With a 10-day close and a
        // 5-minute close for finished sessions, finished ones leave memory soon, unfinished ones wait.
        var grouper = SessionGrouper(closeAfter: 10 * 86_400_000_000, closeFinishedAfter: 300_000_000)
        var closedEarly = 0
        for session in 0..<2_000 {
            let id = UUID()
            let start = Int64(session) * 60_000_000
            let kinds: [EventKind] = [
                .sessionStarted, .stepViewed, session.isMultiple(of: 2) ? .flowCompleted : .stepViewed,
            ]
            for (seq, kind) in kinds.enumerated() {
                let time = start + Int64(seq) * 1_000_000
                grouper.add(sessionID: id, userID: "u", streamTime: time, event: Self.event(kind, time, seq: seq)) {
                    closed in
                    if closed.events.last?.kind == .flowCompleted { closedEarly += 1 }
                }
            }
        }
        // 2,000 minutes of stream: every finished session but the last few (within 5 minutes) is closed;
        // no unfinished one is (they wait 10 days), so about 1,000 stay open.
        #expect(closedEarly >= 990)
        #expect(grouper.openCount >= 1_000 && grouper.openCount <= 1_010)
    }
}
