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

    /// `finish` closes the open sessions in the order their last events came in the stream (not
    /// the order they opened), and leaves the grouper as new for the next sessions.
    @Test func finishClosesTheOpenSessionsByTheirLastEventAndStartsAfresh() {
        var grouper = SessionGrouper(closeAfter: .max)
        let ids = (0..<4).map { _ in UUID() }
        // Opened in order 0, 1, 2, 3; last events at 40, 10, 30, 20.
        let stream: [(Int, Int64)] = [(0, 1), (1, 2), (2, 3), (3, 4), (1, 10), (3, 20), (2, 30), (0, 40)]
        for (seq, (session, time)) in stream.enumerated() {
            grouper.add(
                sessionID: ids[session], userID: "u", streamTime: time, event: Self.event(.stepViewed, time, seq: seq)
            ) { _ in }
        }
        var closed: [UUID] = []
        grouper.finish { closed.append($0.sessionID) }
        #expect(closed == [ids[1], ids[3], ids[2], ids[0]])
        #expect(grouper.openCount == 0)
        // Afresh: the same id opens a new session holding only the new event.
        var again: [RecordedSession] = []
        grouper.add(sessionID: ids[0], userID: "u", streamTime: 50, event: Self.event(.stepViewed, 50, seq: 0)) { _ in }
        grouper.finish { again.append($0) }
        #expect(again.map(\.sessionID) == [ids[0]])
        #expect(again.first?.events.map(\.time) == [50])
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

    /// One session's events, each with the clock offset of the message it came in; the times after
    /// correction, in the order they were added.
    static func corrected(_ stream: [(time: Int64, offset: Int64?)]) -> [Int64] {
        var grouper = SessionGrouper(closeAfter: .max)
        let id = UUID()
        for (seq, entry) in stream.enumerated() {
            grouper.add(
                sessionID: id, userID: "u", streamTime: entry.time,
                event: Self.event(.stepViewed, entry.time, seq: seq),
                clockOffset: entry.offset
            ) { _ in }
        }
        var sessions: [RecordedSession] = []
        grouper.finish { sessions.append($0) }
        return sessions.first?.events.sorted { $0.seq < $1.seq }.map(\.time) ?? []
    }

    @Test func batchesWhoseOffsetsDifferByNetworkDelayShareTheSmallest() {
        // An app 1 h behind; three batches 0.2 s, 1.5 s and 0.9 s on the network.
        let hour: Int64 = 3_600_000_000
        let times = Self.corrected([
            (1_000_000, hour + 200_000), (2_000_000, hour + 200_000), (3_000_000, hour + 1_500_000),
            (4_000_000, hour + 900_000),
        ])
        #expect(times == [1_000_000, 2_000_000, 3_000_000, 4_000_000].map { $0 + hour + 200_000 })
    }

    @Test func eventsWithoutATrustedOffsetKeepTheirTimesFirstOrLast() {
        // The first message had no trusted offset (nil), the next ones 5 s: only those move.
        let shift: Int64 = 5_000_000
        let first = Self.corrected([(1_000_000, nil), (2_000_000, nil), (3_000_000, shift), (4_000_000, shift)])
        #expect(first == [1_000_000, 2_000_000, 3_000_000 + shift, 4_000_000 + shift])
        // And the other way round.
        let last = Self.corrected([(1_000_000, shift), (2_000_000, shift), (3_000_000, nil), (4_000_000, nil)])
        #expect(last == [1_000_000 + shift, 2_000_000 + shift, 3_000_000, 4_000_000])
        // One offset only: every event moves by it.
        #expect(Self.corrected([(1_000_000, shift), (2_000_000, shift)]) == [1_000_000 + shift, 2_000_000 + shift])
    }

    @Test func aMessageFarFromTheOthersMovesNothingNotEvenItself() {
        // Issue 59 (P3-4): one event sent under this user's stream with sent_at 23 h ahead of the
        // server. Before issue 31 the whole session moved back 23 h; until issue 59 that event did,
        // and became the session's start. Now it takes the session's clock, as the app's others do.
        let hour: Int64 = 3_600_000_000
        let times = Self.corrected([
            (1_000_000, 300_000), (2_000_000, 300_000), (3_000_000, -23 * hour), (4_000_000, 500_000),
        ])
        #expect(times == [1_300_000, 2_300_000, 3_300_000, 4_300_000])
        // The other way: sent 23 h before it arrived, first in the session's order.
        let ahead = Self.corrected([(1_000_000, 23 * hour), (2_000_000, 300_000), (3_000_000, 400_000)])
        #expect(ahead == [1_300_000, 2_300_000, 3_300_000])
        // Offsets more than the tolerance apart but chained within it are not pooled beyond it.
        let tolerance = ClockCorrection.tolerance
        let chained = Self.corrected([(10, 0), (20, tolerance), (30, 2 * tolerance)])
        #expect(chained == [10, 20, 30 + tolerance])
    }

    @Test func theSessionsClockIsTheGroupMostMessagesAgreeOn() {
        let hour: Int64 = 3_600_000_000
        let tolerance = ClockCorrection.tolerance
        // More messages win, wherever they stand.
        #expect(SessionGrouper.sessionClock([-23 * hour, 0, 1_000]) == 1..<3)
        #expect(SessionGrouper.sessionClock([-hour, -hour + 5, 2 * hour]) == 0..<2)
        // A tie goes to the smaller correction, then to the lower offset.
        #expect(SessionGrouper.sessionClock([-23 * hour, 300_000]) == 1..<2)
        #expect(SessionGrouper.sessionClock([-300_000, 23 * hour]) == 0..<1)
        #expect(SessionGrouper.sessionClock([-hour, hour]) == 0..<1)
        // A chain within the tolerance is one group however long it is.
        #expect(SessionGrouper.sessionClock([0, tolerance, 2 * tolerance, 5 * hour]) == 0..<3)
        #expect(SessionGrouper.sessionClock([7]) == 0..<1)
        #expect(SessionGrouper.sessionClock([]).isEmpty)
        // A message of one app whose clock really changed by more than the tolerance (set by hand)
        // keeps the clock of the group it lost to: the price of not letting one message move a session.
        let changed = Self.corrected([(1_000_000, hour), (2_000_000, hour + 1), (3_000_000, 0)])
        #expect(changed == [1_000_000 + hour, 2_000_000 + hour, 3_000_000 + hour])
    }

    @Test func anEventWithoutATrustedOffsetKeepsItsClientTime() {
        // A message whose offset ClockCorrection refused (nil) is not moved by its session's others.
        let times = Self.corrected([(1_000_000, 5_000_000), (2_000_000, nil), (3_000_000, 5_000_000)])
        #expect(times == [6_000_000, 2_000_000, 8_000_000])
    }
}
