import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics
@testable import OnboardMetricsStore

@Suite struct RecentEventIDsTests {
    static func events(_ count: Int, seed: UInt64) -> [Event] {
        var random = SplitMix64(seed: seed)
        var ids = UUIDv7Generator()
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        return (0..<count).map { seq in
            Event(
                eventID: ids.next(at: at.addingTimeInterval(Double(seq)), using: &random), sessionID: UUID(),
                userID: "u", seq: seq, kind: .stepViewed, flowID: "f", flowVersion: 1, stepID: "s", occurredAt: at)
        }
    }

    @Test func aRepeatOfAnEarlierBatchIsFoundAndRepeatsWithinABatchAreNot() {
        var recent = RecentEventIDs()
        let first = Self.events(1_000, seed: 1)
        let second = Self.events(1_000, seed: 2)
        // Within one batch, a repeat is the store's to drop: not a repeat of an earlier batch.
        let firstRepeats = recent.noteRepeats(of: first + [first[10], first[10]])
        let secondRepeats = recent.noteRepeats(of: second)
        let resentLast = recent.noteRepeats(of: [second[999]] + Self.events(50, seed: 3))
        let resentFirst = recent.noteRepeats(of: [first[0]])
        let fresh = recent.noteRepeats(of: Self.events(500, seed: 4))
        #expect(!firstRepeats && !secondRepeats && !fresh)
        #expect(resentLast && resentFirst)
    }

    @Test func itRemembersTheLatestIdsAndForgetsOlderOnesPastItsSize() {
        var recent = RecentEventIDs(bits: 10)
        let old = Self.events(200, seed: 5)
        let oldRepeats = recent.noteRepeats(of: old)
        #expect(!oldRepeats)
        // 64 times the table's 1,024 slots later, hardly any old id is left in its slot.
        for round in 0..<64 { _ = recent.noteRepeats(of: Self.events(1_024, seed: 100 + UInt64(round))) }
        let remembered = old.filter { recent.noteRepeats(of: [$0]) }.count
        #expect(remembered < 5, "\(remembered)")
        let latest = Self.events(100, seed: 7)
        _ = recent.noteRepeats(of: latest)
        // Of the latest 100 ids in 1,024 slots, about 95 % keep their slot against each other.
        let found = latest.filter { recent.noteRepeats(of: [$0]) }.count
        #expect(found >= 85, "\(found)")
    }
}
