import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK

/// Sessions derived at read time from a user's session stream: cut at gaps over 30 minutes, ids
/// from the stream and the first event's time, so the same events give the same sessions.
@Suite struct DerivedSessionSplitterTests {
    static let minute: Int64 = 60_000_000

    /// The sessions a grouper makes of `times` (minutes) for two users' streams, interleaved.
    static func sessions(_ times: [(user: String, minute: Int64)]) -> [RecordedSession] {
        var grouper = SessionGrouper(closeAfter: 8 * 86_400_000_000)
        var sessions: [RecordedSession] = []
        for (user, minute) in times.sorted(by: { $0.minute < $1.minute }) {
            let time = 1_790_000_000_000_000 + minute * Self.minute
            grouper.add(
                sessionID: DerivedSessionID.stream(user: user), userID: user, streamTime: time,
                event: RecordedEvent(kind: .custom, name: "e\(minute)", time: time, seq: 0)
            ) { sessions.append($0) }
        }
        grouper.finish { sessions.append($0) }
        return sessions.sorted { ($0.userID, $0.startTime) < ($1.userID, $1.startTime) }
    }

    @Test func gapsOverThirtyMinutesStartANewSessionPerUser() {
        let sessions = Self.sessions([
            ("a", 0), ("a", 10), ("a", 40), ("a", 71), ("b", 5), ("b", 36), ("a", 100),
        ])
        // a: 0,10,40 (gaps 10, 30) | 71,100 (gap 31, then 29); b: 5 | 36 (gap 31).
        #expect(sessions.map(\.userID) == ["a", "a", "b", "b"])
        #expect(sessions.map { $0.events.map(\.name) } == [["e0", "e10", "e40"], ["e71", "e100"], ["e5"], ["e36"]])
        #expect(sessions[0].events.map(\.seq) == [1, 2, 3])
        #expect(Set(sessions.map(\.sessionID)).count == 4)
        #expect(!sessions.contains { DerivedSessionID.isStream($0.sessionID) })
        // Deterministic: the same events (read again, as every report does) give the same ids.
        #expect(
            Self.sessions([("b", 36), ("a", 100), ("a", 0), ("b", 5), ("a", 71), ("a", 40), ("a", 10)]).map(\.sessionID)
                == sessions.map(\.sessionID))
    }

    @Test func streamIdsAreRecognizedAndOtherIdsAreNot() {
        #expect(DerivedSessionID.isStream(DerivedSessionID.stream(user: "u")))
        #expect(DerivedSessionID.stream(user: "u") != DerivedSessionID.stream(user: "v"))
        #expect(!DerivedSessionID.isStream(StableID.sessionID(for: "u")))
        #expect(!DerivedSessionID.isStream(UUID()))
    }
}
