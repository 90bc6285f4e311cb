import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct EventStoreTests {
    @Test func duplicatesAreDroppedNeverStoredTwiceAndNeverFailTheBatch() async throws {
        let configuration = try await TestDatabase.migrated("event_store_dedupe")
        let events = SampleEvents.make(sessions: 100, perSession: 10)
        let results = try await TestDatabase.withConnection(configuration) { connection in
            let store = EventStore()
            let now = Date()
            let first = try store.write(Array(events[0..<500]), on: connection, receivedAt: now)
            // Half already stored, half new, and one event twice within the batch.
            let second = try store.write(Array(events[250..<1000]) + [events[999]], on: connection, receivedAt: now)
            let third = try store.write(events, on: connection, receivedAt: now)
            let counts = try connection.query(
                "SELECT count(*) AS n, count(DISTINCT event_id) AS d, (SELECT count(*) FROM sessions) AS s FROM events")
            return (first, second, third, counts.first)
        }
        #expect(results.0 == EventStore.WriteResult(inserted: 500, duplicates: 0))
        #expect(results.1 == EventStore.WriteResult(inserted: 500, duplicates: 251))
        #expect(results.2 == EventStore.WriteResult(inserted: 0, duplicates: 1000))
        #expect(results.3?["n"].int == 1000)
        #expect(results.3?["d"].int == 1000)
        #expect(results.3?["s"].int == 100)
    }

    @Test func aRepeatWithinABatchKeepsItsFirstOccurrence() async throws {
        let configuration = try await TestDatabase.migrated("event_store_first_occurrence")
        var events = SampleEvents.make(sessions: 2, perSession: 5)
        var repeated = events[3]
        repeated.properties = ["n": .number(-1)]
        var repeatedStart = events[5]
        repeatedStart.properties = ["context": .object(["platform": "android"])]
        // A repeat right after the first copy (the generator's resend) and one far from it.
        events.insert(repeated, at: 4)
        events.append(repeatedStart)
        let batch = events
        let (repeatedID, startedSession) = (repeated.eventID, repeatedStart.sessionID)
        let (result, rows) = try await TestDatabase.withConnection(configuration) { connection in
            let result = try EventStore().write(batch, on: connection, receivedAt: Date())
            let rows = try connection.query(
                """
                SELECT (SELECT count(*) FROM events) AS n,
                       (SELECT (properties->>'n')::float8 FROM events WHERE event_id = $1) AS kept,
                       (SELECT context->>'platform' FROM sessions WHERE session_id = $2) AS platform
                """, [.uuid(repeatedID), .uuid(startedSession)])
            return (result, rows.first)
        }
        #expect(result == EventStore.WriteResult(inserted: 10, duplicates: 2))
        #expect(rows?["n"].int == 10)
        #expect(rows?["kept"].double == 3)
        #expect(rows?["platform"].string == "ios")
    }

    @Test func aResentBatchIsProbedAndCountedExactly() async throws {
        let configuration = try await TestDatabase.migrated("event_store_resend")
        let events = SampleEvents.make(sessions: 40, perSession: 10)
        let (results, hints, counts) = try await TestDatabase.withConnection(configuration) { connection in
            let store = EventStore()
            var hints = EventStore.WriteHints()
            var results: [EventStore.WriteResult] = []
            var seen: [EventStore.WriteHints] = []
            results.append(try store.write(Array(events[0..<200]), on: connection, receivedAt: Date(), hints: &hints))
            seen.append(hints)
            // The same batch again: the straight COPY fails, the probe finds every id.
            results.append(try store.write(Array(events[0..<200]), on: connection, receivedAt: Date(), hints: &hints))
            seen.append(hints)
            // Now a resending writer probes first: half stored, half new, one repeat.
            results.append(
                try store.write(
                    Array(events[100..<300]) + [events[299]], on: connection, receivedAt: Date(), hints: &hints))
            seen.append(hints)
            // Nothing stored: the probe finds nothing and the writer stops expecting resends.
            results.append(try store.write(Array(events[300..<400]), on: connection, receivedAt: Date(), hints: &hints))
            seen.append(hints)
            let counts = try connection.query(
                "SELECT (SELECT count(*) FROM events) AS n, (SELECT count(*) FROM sessions) AS s")
            return (results, seen, counts.first)
        }
        #expect(
            results == [
                EventStore.WriteResult(inserted: 200, duplicates: 0),
                EventStore.WriteResult(inserted: 0, duplicates: 200),
                EventStore.WriteResult(inserted: 100, duplicates: 101),
                EventStore.WriteResult(inserted: 100, duplicates: 0),
            ])
        #expect(hints.map(\.resending) == [false, true, true, false])
        #expect(hints.map(\.lastStoredDuplicates) == [0, 200, 100, 0])
        #expect(counts?["n"].int == 400)
        #expect(counts?["s"].int == 40)
    }

    /// The key is `(event_id, session_id)` (migration 0003, for sharding): an id reused by another
    /// session is another row, however the write goes (straight COPY, probe, or within a batch),
    /// so one server stores what a sharded deployment stores.
    @Test func anIDReusedByAnotherSessionIsAnotherRowOnEveryPath() async throws {
        let configuration = try await TestDatabase.migrated("event_store_key_pair")
        let events = SampleEvents.make(sessions: 4, perSession: 5)
        let other = UUID()
        let reused = events.map { event -> Event in
            var copy = event
            copy.sessionID = other
            return copy
        }
        let (results, rows) = try await TestDatabase.withConnection(configuration) { connection in
            let store = EventStore()
            var hints = EventStore.WriteHints()
            var results: [EventStore.WriteResult] = []
            results.append(try store.write(events, on: connection, receivedAt: Date(), hints: &hints))
            // A resend makes the writer probe first; the probe must not take the reused ids for stored ones.
            results.append(try store.write(events, on: connection, receivedAt: Date(), hints: &hints))
            results.append(try store.write(reused, on: connection, receivedAt: Date(), hints: &hints))
            // Within one batch: the pair decides what a repeat is.
            let third = UUID()
            let mixed = [events[0], events[0]].enumerated().map { index, event -> Event in
                var copy = event
                if index == 1 { copy.sessionID = third }
                return copy
            }
            results.append(try store.write(mixed, on: connection, receivedAt: Date(), hints: &hints))
            let rows = try connection.query("SELECT count(*) AS n FROM events").first?["n"].int
            return (results, rows)
        }
        #expect(
            results == [
                EventStore.WriteResult(inserted: 20, duplicates: 0),
                EventStore.WriteResult(inserted: 0, duplicates: 20),
                EventStore.WriteResult(inserted: 20, duplicates: 0),
                EventStore.WriteResult(inserted: 1, duplicates: 1),
            ])
        #expect(rows == 41)
    }

    @Test func theWriterRoleWithoutSelectStillDropsDuplicates() async throws {
        let configuration = try await TestDatabase.migrated("event_store_writer_role")
        let events = SampleEvents.make(sessions: 10, perSession: 10)
        let (results, refused) = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SET ROLE onboardmetrics_writer")
            let store = EventStore()
            var hints = EventStore.WriteHints()
            let first = try store.write(Array(events[0..<60]), on: connection, receivedAt: Date(), hints: &hints)
            let second = try store.write(events, on: connection, receivedAt: Date(), hints: &hints)
            let third = try store.write(events, on: connection, receivedAt: Date(), hints: &hints)
            try connection.query("RESET ROLE")
            return ([first, second, third], hints.probeRefused)
        }
        #expect(
            results == [
                EventStore.WriteResult(inserted: 60, duplicates: 0),
                EventStore.WriteResult(inserted: 40, duplicates: 60),
                EventStore.WriteResult(inserted: 0, duplicates: 100),
            ])
        #expect(refused)
        let rows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT (SELECT count(*) FROM events) AS n, (SELECT count(*) FROM sessions) AS s")
                .first
        }
        #expect(rows?["n"].int == 100)
        #expect(rows?["s"].int == 10)
    }

    @Test func concurrentWritersOfTheSameIdsStoreEachOnceAndCountItOnce() async throws {
        let configuration = try await TestDatabase.migrated("event_store_concurrent")
        let rounds = 8
        let perRound = 600
        let events = SampleEvents.make(sessions: rounds * perRound / 10, perSession: 10)
        // Two writers get overlapping batches of each round (one forwards, one backwards), at once.
        @Sendable func writer(_ reversed: Bool) async throws -> Int {
            try await TestDatabase.withConnection(configuration) { connection in
                var hints = EventStore.WriteHints()
                var inserted = 0
                for round in 0..<rounds {
                    let slice = Array(events[(round * perRound)..<((round + 1) * perRound)])
                    let batch = reversed ? Array(slice.reversed().prefix(400)) : Array(slice.prefix(400))
                    inserted += try EventStore().write(batch, on: connection, receivedAt: Date(), hints: &hints)
                        .inserted
                }
                return inserted
            }
        }
        async let forwards = writer(false)
        async let backwards = writer(true)
        let total = try await forwards + backwards
        let rows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n, count(DISTINCT event_id) AS d FROM events").first
        }
        #expect(total == rounds * perRound)
        #expect(rows?["n"].int == rounds * perRound)
        #expect(rows?["d"].int == rounds * perRound)
    }

    @Test func aNewStartOfAStoredSessionLeavesTheSessionAsItWas() async throws {
        let configuration = try await TestDatabase.migrated("event_store_session_again")
        let events = SampleEvents.make(sessions: 3, perSession: 4)
        // A second session_started (a new event id) for session 0, with another context.
        var again = SampleEvents.make(sessions: 1, perSession: 1, seed: 99)[0]
        again.sessionID = events[0].sessionID
        again.properties = ["context": .object(["platform": "android"])]
        let batch = Array(events[4...]) + [again]
        let (results, rows) = try await TestDatabase.withConnection(configuration) { connection in
            let store = EventStore()
            let first = try store.write(Array(events[0..<4]), on: connection, receivedAt: Date())
            let second = try store.write(batch, on: connection, receivedAt: Date())
            let rows = try connection.query(
                """
                SELECT (SELECT count(*) FROM events) AS n, (SELECT count(*) FROM sessions) AS s,
                       (SELECT context->>'platform' FROM sessions WHERE session_id = $1) AS platform
                """, [.uuid(events[0].sessionID)])
            return ([first, second], rows.first)
        }
        #expect(
            results == [
                EventStore.WriteResult(inserted: 4, duplicates: 0), EventStore.WriteResult(inserted: 9, duplicates: 0),
            ])
        #expect(rows?["n"].int == 13)
        #expect(rows?["s"].int == 3)
        #expect(rows?["platform"].string == "ios")
    }

    @Test func storedEventsReadBackFieldForField() async throws {
        let configuration = try await TestDatabase.migrated("event_store_fields")
        let events = SampleEvents.make(sessions: 3, perSession: 4)
        let back = try await TestDatabase.withConnection(configuration) { connection in
            try EventStore().write(events, on: connection, receivedAt: Date())
            return try connection.query(
                """
                SELECT event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id,
                       occurred_at, sent_at, properties::text AS properties
                FROM events ORDER BY event_id
                """)
        }
        #expect(back.count == events.count)
        for (row, event) in zip(back, events.sorted { $0.eventID.uuidString < $1.eventID.uuidString }) {
            #expect(row["event_id"].uuid == event.eventID)
            #expect(row["session_id"].uuid == event.sessionID)
            #expect(row["user_id"].string == event.userID)
            #expect(row["seq"].int == event.seq)
            #expect(row["kind"].string == event.kind.rawValue)
            #expect(row["step_id"].string == event.stepID)
            #expect(
                abs((row["occurred_at"].date?.timeIntervalSince1970 ?? 0) - event.occurredAt.timeIntervalSince1970)
                    < 1e-6)
        }
    }
}
