import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// What an ingest holds for building its sessions' traces stays within the limit, counted as
/// what is held (not only what was stored), by all its writers together.
@Suite struct StoredSessionsTests {
    /// Events of the generator's first `sessions` sessions.
    static func events(_ sessions: Range<Int>) throws -> [Event] {
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 5)
        return sessions.flatMap { generator.session($0).events }
    }

    /// Every place points at the event it names.
    static func placesAreRight(_ stored: StoredSessions) -> Bool {
        stored.sessions.allSatisfy { id, session in
            session.events.allSatisfy { place in
                let event = stored.batches[Int(place.batch)][Int(place.row)]
                return event.eventID == place.id && event.sessionID == id
            }
        }
    }

    /// A re-ingest stores nothing: holding its batches would hold the whole file until the exit.
    @Test func aBatchWithNothingStoredIsNotHeld() throws {
        var stored = StoredSessions(limit: 1_000)
        let events = try Self.events(0..<4)
        stored.add(events, rows: [], receivedAt: 0)
        #expect(stored.eventCount == 0)
        #expect(stored.batches.isEmpty)
        #expect(stored.sessions.isEmpty)
        #expect(!stored.overflowed)
    }

    /// A batch mostly resent is held as a copy of the events it stored; one mostly new as it is.
    @Test func aMostlyResentBatchIsHeldAsACopyOfWhatItStored() throws {
        var stored = StoredSessions(limit: 1_000)
        let events = try Self.events(0..<4)
        #expect(events.count > 10)
        stored.add(events, rows: [1, 5, 9], receivedAt: 7)
        #expect(stored.eventCount == 3)
        #expect(stored.batches.map(\.count) == [3])
        #expect(
            Set(stored.sessions.values.flatMap { $0.events.map(\.id) }) == Set([1, 5, 9].map { events[$0].eventID }))
        let most = Array(0..<(events.count - 1))
        stored.add(events, rows: most, receivedAt: 8)
        #expect(stored.eventCount == 3 + events.count)
        #expect(stored.batches.map(\.count) == [3, events.count])
        #expect(stored.sessions.values.reduce(0) { $0 + $1.events.count } == 3 + most.count)
        #expect(Self.placesAreRight(stored))
        #expect(stored.batchReceivedAt == [7, 8])
    }

    /// Writers start from copies of one value: together they hold at most the limit, and one
    /// going past it empties the others too.
    @Test func theLimitIsSharedByTheWriters() throws {
        let events = try Self.events(0..<8)
        let half = events.count / 2
        let (first, second) = (Array(events[..<half]), Array(events[half...]))

        let roomy = StoredSessions(limit: events.count)
        var (a, b, merged) = (roomy, roomy, roomy)
        a.add(first, rows: Array(first.indices), receivedAt: 0)
        b.add(second, rows: Array(second.indices), receivedAt: 0)
        merged.merge(a)
        merged.merge(b)
        #expect(!merged.overflowed)
        #expect(merged.eventCount == events.count)
        #expect(Self.placesAreRight(merged))

        // Each writer alone is within this limit; the two together are not.
        let tight = StoredSessions(limit: events.count - 1)
        var (c, d, total) = (tight, tight, tight)
        c.add(first, rows: Array(first.indices), receivedAt: 0)
        #expect(!c.overflowed)
        d.add(second, rows: Array(second.indices), receivedAt: 0)
        #expect(d.overflowed)
        c.add(first, rows: [0], receivedAt: 0)
        #expect(c.overflowed && c.eventCount == 0 && c.batches.isEmpty)
        total.merge(c)
        total.merge(d)
        #expect(total.overflowed && total.sessions.isEmpty)
    }

    /// A batch whose stored rows are not known (moved through the staging table) makes its
    /// sessions unknown: their traces are read back, never encoded from what was kept.
    @Test func sessionsOfABatchOfUnknownRowsAreReadBack() throws {
        let events = try Self.events(0..<4)
        let unknownSession = try #require(events.first?.sessionID)
        var stored = StoredSessions(limit: 1_000)
        stored.add(events, rows: Array(events.indices), receivedAt: 0)
        stored.add(events.filter { $0.sessionID == unknownSession }, rows: nil, receivedAt: 0)
        #expect(stored.unknown == [unknownSession])
        let traces = TraceBuilder.StoredTraces(stored, threads: 2)
        for (id, session) in stored.sessions {
            let marks = TraceBuilder.StoredMarks(mine: session.statements, others: 0, traced: false)
            #expect((traces.trace(of: id, marks: marks) == nil) == (id == unknownSession))
        }
    }
}
