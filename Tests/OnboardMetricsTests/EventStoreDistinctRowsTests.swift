import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics
@testable import OnboardMetricsStore

/// `EventStore.distinctRows`: which rows of a batch are stored, and in what order, checked against
/// a plain restatement of the rule (first occurrence of each key, then sorted by the id's bytes).
@Suite struct EventStoreDistinctRowsTests {
    static func event(_ id: UUID, session: UUID, seq: Int) -> Event {
        Event(
            eventID: id, sessionID: session, userID: "u", seq: seq, kind: .stepViewed, flowID: "f", flowVersion: 1,
            stepID: "s", occurredAt: Date(timeIntervalSince1970: 1_790_000_000))
    }

    /// The rule spelled out the slow way: keep the first event of each (event_id, session_id), then
    /// order by event_id as PostgreSQL compares uuids (bytewise), ties in batch order.
    static func expected(_ events: [Event]) -> [Int] {
        var seen = Set<String>()
        let kept = events.indices.filter { seen.insert("\(events[$0].eventID) \(events[$0].sessionID)").inserted }
        func bytes(_ index: Int) -> [UInt8] { withUnsafeBytes(of: events[index].eventID.uuid) { Array($0) } }
        return kept.enumerated().sorted { left, right in
            let (a, b) = (bytes(left.element), bytes(right.element))
            return a == b ? left.offset < right.offset : a.lexicographicallyPrecedes(b)
        }.map(\.element)
    }

    @Test func keepsTheFirstOccurrenceOfEachKeyInIDOrder() {
        var random = SplitMix64(seed: 7)
        var ids = UUIDv7Generator()
        let session = UUID()
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        // Ids out of order (late and swapped lines), with resends a line or two apart.
        var events = (0..<500).map { seq in
            Self.event(ids.next(at: start.addingTimeInterval(Double(seq)), using: &random), session: session, seq: seq)
        }
        events.shuffle(using: &random)
        for position in stride(from: 480, to: 0, by: -60) { events.insert(events[position], at: position + 2) }
        // The same id in another session is another row (the key is (event_id, session_id)).
        events.append(Self.event(events[3].eventID, session: UUID(), seq: 0))
        let rows = EventStore.distinctRows(events)
        #expect(rows != Array(rows.sorted()))  // the batch was not in id order
        #expect(rows == Self.expected(events))
        #expect(rows.count == 501)
        #expect(Set(rows).count == rows.count)
    }

    @Test func oneIDUnderManySessionsKeepsOneRowPerSession() {
        var random = SplitMix64(seed: 9)
        var ids = UUIDv7Generator()
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let shared = ids.next(at: start, using: &random)
        let sessions = (0..<40).map { _ in UUID() }
        // Each session's event twice, in a shuffled batch with other ids around it.
        var events = (sessions + sessions).enumerated().map { Self.event(shared, session: $0.element, seq: $0.offset) }
        events += (0..<30).map { seq in
            Self.event(ids.next(at: start.addingTimeInterval(Double(seq)), using: &random), session: UUID(), seq: seq)
        }
        events.shuffle(using: &random)
        let rows = EventStore.distinctRows(events)
        #expect(rows == Self.expected(events))
        #expect(rows.count == 70)
    }

    @Test func aBatchAlreadyInOrderKeepsItsOrder() {
        var random = SplitMix64(seed: 8)
        var ids = UUIDv7Generator()
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let events = (0..<100).map { seq in
            Self.event(ids.next(at: start.addingTimeInterval(Double(seq)), using: &random), session: UUID(), seq: seq)
        }
        #expect(EventStore.distinctRows(events) == Array(0..<100))
        #expect(EventStore.distinctRows([]) == [])
    }
}
