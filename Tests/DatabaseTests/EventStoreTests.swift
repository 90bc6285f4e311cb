import Foundation
import Testing

@testable import OnboardMetrics
@testable import OnboardMetricsSDK

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
