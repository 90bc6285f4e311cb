import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// How session traces are kept (the trigger on events, the catch-up of a report), checked
/// (`funnel verify`), and when a read falls back to the events.
@Suite struct SessionTraceMaintenanceTests {
    static func events(sessions: Int, seed: UInt64 = 4) throws -> [Event] {
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: seed)
        return (0..<sessions).flatMap { generator.session($0).events }
    }

    static func sessions(
        _ configuration: PostgresConfiguration, source: SessionSource, role: String? = nil
    ) async throws -> [RecordedSession] {
        try await TestDatabase.withConnection(configuration) { connection in
            if let role { try connection.query("SET ROLE \(role)") }
            var reader = SessionReader()
            reader.source = source
            var sessions: [RecordedSession] = []
            try reader.read(on: connection) { sessions.append($0) }
            return sessions.sorted { $0.sessionID.uuidString < $1.sessionID.uuidString }
        }
    }

    static func count(_ configuration: PostgresConfiguration, _ sql: String) async throws -> Int {
        try await TestDatabase.withConnection(configuration) { try $0.query(sql).first?[0].int ?? -1 }
    }

    @Test func writesMarkTheirSessionsAndAReportRebuildsThem() async throws {
        let configuration = try await TestDatabase.migrated("traces_marks")
        let events = try Self.events(sessions: 40)
        let sessionCount = Set(events.map(\.sessionID)).count
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
        }
        // COPY FROM into the partitioned parent fired the trigger, once per session.
        #expect(
            try await Self.count(configuration, "SELECT count(DISTINCT session_id) FROM trace_dirty") == sessionCount)
        let fromTraces = try await Self.sessions(configuration, source: .traces)
        #expect(try await Self.count(configuration, "SELECT count(DISTINCT session_id) FROM trace_dirty") == 0)
        #expect(try await Self.count(configuration, "SELECT count(*) FROM session_traces") == sessionCount)
        #expect(
            try await Self.count(configuration, "SELECT sum(event_count)::integer FROM session_traces") == events.count)
        #expect(fromTraces == (try await Self.sessions(configuration, source: .events)))
        // A resend stores nothing and marks nothing; a delete marks its session.
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(Array(events.prefix(5)), on: connection, receivedAt: Date())
        }
        #expect(try await Self.count(configuration, "SELECT count(DISTINCT session_id) FROM trace_dirty") == 0)
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("DELETE FROM events WHERE session_id = $1", [.uuid(events[0].sessionID)])
        }
        #expect(try await Self.count(configuration, "SELECT count(DISTINCT session_id) FROM trace_dirty") == 1)
        let afterDelete = try await Self.sessions(configuration, source: .traces)
        #expect(afterDelete.count == fromTraces.count - 1)
        #expect(afterDelete == (try await Self.sessions(configuration, source: .events)))
        #expect(try await Self.count(configuration, "SELECT count(*) FROM session_traces") == sessionCount - 1)
    }

    @Test func writersOfOneSessionWaitNeitherForEachOtherNorForACatchUp() async throws {
        let configuration = try await TestDatabase.migrated("traces_no_wait")
        let events = try Self.events(sessions: 3)
        let session = events[0].sessionID
        let ofSession = events.filter { $0.sessionID == session }
        #expect(ofSession.count >= 3)
        try await TestDatabase.withConnection(configuration) { [ofSession] connection in
            _ = try EventStore().write([ofSession[0]], on: connection, receivedAt: Date())
            // Another transaction stays open after marking the session (a writer held up), and
            // another after taking its marks (a catch-up under way).
            let writer = try PostgresConnection(configuration: configuration)
            defer { writer.close() }
            try writer.query("BEGIN")
            let held = ofSession[1]
            try writer.query(
                "INSERT INTO events (event_id, session_id, seq, kind, occurred_at) VALUES ($1, $2, $3, $4, $5)",
                [
                    .uuid(held.eventID), .uuid(held.sessionID), .int32(Int32(held.seq)), .text(held.kind.rawValue),
                    .timestamp(held.occurredAt),
                ])
            let catchUp = try PostgresConnection(configuration: configuration)
            defer { catchUp.close() }
            try catchUp.query("BEGIN")
            try catchUp.query("DELETE FROM trace_dirty WHERE session_id = $1", [.uuid(session)])
            try connection.query("SET lock_timeout = '2s'")
            _ = try EventStore().write([ofSession[2]], on: connection, receivedAt: Date())
            try catchUp.query("ROLLBACK")
            try writer.query("COMMIT")
        }
        #expect(
            try await Self.count(configuration, "SELECT count(*) FROM events WHERE session_id = '\(session)'") == 3)
        let fromTraces = try await Self.sessions(configuration, source: .traces)
        #expect(fromTraces == (try await Self.sessions(configuration, source: .events)))
    }

    @Test func aCatchUpInSmallBatchesTakesEverySessionOfItsBucketsAndNoOther() async throws {
        let configuration = try await TestDatabase.migrated("traces_batches")
        let events = try Self.events(sessions: 60)
        let ids = Set(events.map(\.sessionID))
        let expected = ids.filter { SessionBucket.of($0) < 32 }.count
        let (rebuilt, pendingMine, pending) = try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
            var builder = TraceBuilder()
            builder.batchSize = 7
            let rebuilt = try builder.catchUp(on: connection, buckets: Array(0..<32))
            let mine = try connection.query(
                "SELECT count(DISTINCT session_id) FROM trace_dirty WHERE onboardmetrics_bucket(session_id) < 32")
            let all = try connection.query("SELECT count(DISTINCT session_id) FROM trace_dirty")
            return (rebuilt, mine.first?[0].int, all.first?[0].int)
        }
        #expect(expected > 7 && expected < ids.count)
        #expect(rebuilt == expected)
        #expect(pendingMine == 0)
        #expect(pending == ids.count - expected)
        let result = try await TestDatabase.withConnection(configuration) { try TraceVerifier().verify(on: $0) }
        #expect(result.isConsistent)
        #expect(result.sessions == expected)
        #expect(result.pending == ids.count - expected)
    }

    @Test func aCatchUpOnSeveralConnectionsRebuildsEverySessionOnce() async throws {
        let configuration = try await TestDatabase.migrated("traces_parallel")
        let events = try Self.events(sessions: 60)
        let ids = Set(events.map(\.sessionID))
        let rebuilt = try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
            var builder = TraceBuilder()
            builder.batchSize = 7
            builder.parallelFrom = 10
            return try builder.catchUp(on: connection, parts: 3)
        }
        #expect(rebuilt == ids.count)
        #expect(try await Self.count(configuration, "SELECT count(*) FROM trace_dirty") == 0)
        let result = try await TestDatabase.withConnection(configuration) { try TraceVerifier().verify(on: $0) }
        #expect(result.isConsistent)
        #expect(result.traces == ids.count)
    }

    /// Manual vacuums of `session_traces` so far (autovacuum's are counted apart).
    static func vacuums(_ configuration: PostgresConfiguration) async throws -> Int {
        try await count(
            configuration, "SELECT vacuum_count::integer FROM pg_stat_user_tables WHERE relname = 'session_traces'")
    }

    @Test func aBulkCatchUpVacuumsTheTracesWhereAutovacuumWouldAndOnlyThere() async throws {
        let configuration = try await TestDatabase.migrated("traces_vacuum")
        let builder = {
            var builder = TraceBuilder()
            builder.parallelFrom = 10
            return builder
        }()
        // Autovacuum off for the table: no vacuum.
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("ALTER TABLE session_traces SET (autovacuum_enabled = off)")
            _ = try EventStore().write(try Self.events(sessions: 30, seed: 5), on: connection, receivedAt: Date())
            #expect(try builder.catchUp(on: connection, parts: 2) == 30)
        }
        #expect(try await Self.vacuums(configuration) == 0)
        // On, vacuumed after 10 + 0.1 × 30 = 13 inserts: 30 more are past it; then 12 more are
        // not past 10 + 0.1 × 60 = 16.
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                """
                ALTER TABLE session_traces SET (autovacuum_enabled = on, autovacuum_vacuum_insert_threshold = 10,
                    autovacuum_vacuum_insert_scale_factor = 0.1)
                """)
            try connection.query("ANALYZE session_traces")
            _ = try EventStore().write(try Self.events(sessions: 30, seed: 6), on: connection, receivedAt: Date())
            #expect(try builder.catchUp(on: connection, parts: 2) == 30)
        }
        #expect(try await Self.vacuums(configuration) == 1)
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(try Self.events(sessions: 12, seed: 7), on: connection, receivedAt: Date())
            #expect(try builder.catchUp(on: connection, parts: 2) == 12)
        }
        #expect(try await Self.vacuums(configuration) == 1)
    }

    @Test func aReadOnSeveralConnectionsBuildsEveryTraceInOneCatchUpAndVacuumsAfter() async throws {
        let configuration = try await TestDatabase.migrated("traces_split_read")
        // More than TraceBuilder's default `parallelFrom` (1,000): a bulk build.
        let events = try Self.events(sessions: 1_100, seed: 8)
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
        }
        var reader = SessionReader()
        reader.source = .traces
        let sharded = ShardedReader(
            reader: reader, topology: ShardTopology(shards: []), coordinator: configuration, connectionsPerShard: 2)
        let sessions = try await sharded.read { SessionTraceExactnessTests.Collected() }.flatMap(\.sessions)
        #expect(Set(sessions.map(\.sessionID)) == Set(events.map(\.sessionID)))
        #expect(try await Self.count(configuration, "SELECT count(*) FROM trace_dirty") == 0)
        // One vacuum: the shares' own catch-ups found nothing left (each would have built its half).
        #expect(try await Self.vacuums(configuration) == 1)
    }

    @Test func verifyFindsACorruptedTraceAndRebuildRepairsIt() async throws {
        let configuration = try await TestDatabase.migrated("traces_verify")
        let events = try Self.events(sessions: 30)
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
            try TraceBuilder().catchUp(on: connection, buckets: nil)
        }
        let url = TestDatabase.url(of: configuration)
        let clean = try await FunnelProcess.run(["verify", "--quiet", "--database-url", url])
        #expect(clean.status == 0, "\(clean.output)\(clean.errors)")
        #expect(clean.output.contains("session traces match the events"))

        let ids = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
        try await TestDatabase.withConnection(configuration) { connection in
            // One trace says another seq for an event; one is gone; one outlives its events (the
            // trigger disabled, as a broken maintenance would).
            let stored = try connection.query("SELECT trace FROM session_traces WHERE session_id = $1", [.uuid(ids[0])])
            guard case .bytea(let bytes)? = stored.first?[0] else { throw PostgresError(.invalidValue, "no trace") }
            var rows = try SessionTrace.decode(bytes)
            rows[rows.count - 1].seq += 1
            try connection.query(
                "UPDATE session_traces SET trace = $2 WHERE session_id = $1",
                [.uuid(ids[0]), .bytea(SessionTrace.encode(rows))])
            try connection.query("DELETE FROM session_traces WHERE session_id = $1", [.uuid(ids[1])])
            try connection.query("ALTER TABLE events DISABLE TRIGGER events_traces_delete")
            try connection.query("DELETE FROM events WHERE session_id = $1", [.uuid(ids[2])])
            try connection.query("ALTER TABLE events ENABLE TRIGGER events_traces_delete")
        }
        let broken = try await FunnelProcess.run(["verify", "--quiet", "--format", "json", "--database-url", url])
        #expect(broken.status == 3, "\(broken.output)\(broken.errors)")
        let entries = try JSONDecoder().decode([Entry].self, from: Data(broken.output.utf8))
        let result = try #require(entries.first?.result)
        #expect(result.differing == [ids[0]])
        #expect(result.missing == [ids[1]])
        #expect(result.orphaned == [ids[2]])
        #expect(result.pending == 0)

        let repaired = try await FunnelProcess.run(["verify", "--rebuild", "--quiet", "--database-url", url])
        #expect(repaired.status == 0, "\(repaired.output)\(repaired.errors)")
        #expect(
            try await Self.sessions(configuration, source: .traces)
                == (try await Self.sessions(configuration, source: .events)))
    }

    /// `funnel verify --format json`, as decoded here.
    struct Entry: Decodable {
        struct Result: Decodable {
            var differing: [UUID]
            var missing: [UUID]
            var orphaned: [UUID]
            var pending: Int
        }
        var result: Result
    }

    @Test func eventIDsThatAreNotVersion7AreReadFromTheEvents() async throws {
        let configuration = try await TestDatabase.migrated("traces_irregular")
        var events = try Self.events(sessions: 20)
        events[3].eventID = UUID()  // version 4: its stream position is not its time
        try await TestDatabase.withConnection(configuration) { [events] connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
        }
        let automatic = try await Self.sessions(configuration, source: .automatic)
        #expect(automatic == (try await Self.sessions(configuration, source: .events)))
        await #expect(throws: TraceError.self) { try await Self.sessions(configuration, source: .traces) }
    }

    @Test func aReaderThatMayNotRebuildReadsTheEvents() async throws {
        let configuration = try await TestDatabase.migrated("traces_reader_role")
        let events = try Self.events(sessions: 20)
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(events, on: connection, receivedAt: Date())
        }
        let expected = try await Self.sessions(configuration, source: .events)
        #expect(try await Self.sessions(configuration, source: .automatic, role: "onboardmetrics_reader") == expected)
        await #expect(throws: TraceError.self) {
            try await Self.sessions(configuration, source: .traces, role: "onboardmetrics_reader")
        }
        // Once a role that may write has caught up, the reader role reads the traces.
        _ = try await Self.sessions(configuration, source: .traces)
        #expect(try await Self.sessions(configuration, source: .traces, role: "onboardmetrics_reader") == expected)
    }
}
