import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// An ingest's catch-up encodes the traces of the sessions whose events it kept and are all of
/// their events, and reads back every other session: the traces equal those read from the events
/// byte for byte (`TraceVerifier`), whichever way each was built.
@Suite struct TraceBuilderStoredTests {
    /// Sessions of the generator, in three groups: `traced` have their first half stored and
    /// built before the ingest, `pending` their first event stored by another writer and not
    /// built, `new` nothing. The ingest's file holds the rest of each, some lines twice, and new
    /// sessions' events carry properties that jsonb prints differently from how they were sent.
    struct Setup {
        var before: [Event] = []
        var file: [Event] = []
        var traced: Set<UUID> = []
        var pending: Set<UUID> = []
        var new: Set<UUID> = []
    }

    static func setup() throws -> Setup {
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 71)
        var setup = Setup()
        for index in 0..<60 {
            var events = generator.session(index).events
            guard let id = events.first?.sessionID else { continue }
            switch index {
            case 0..<20:
                setup.traced.insert(id)
                let half = events.count / 2
                setup.before += events[..<half]
                setup.file += events[half...]
                // Resent: already stored.
                setup.file += events.prefix(2)
            case 20..<30:
                setup.pending.insert(id)
                setup.before.append(events[0])
                setup.file += events.dropFirst()
            default:
                setup.new.insert(id)
                for position in events.indices where position % 3 == 0 {
                    events[position].properties["zz"] = .object([
                        "b": .number(1e-5), "aa": .array([.number(1.5e20), .string("tab\there \u{08}")]), "a": .null,
                    ])
                }
                setup.file += events
                // A repeat within the file, lines apart.
                setup.file.append(events[events.count / 2])
            }
        }
        return setup
    }

    @Test func sessionsWhoseEventsAreAllKeptAreEncodedAndTheRestReadBack() async throws {
        let configuration = try await TestDatabase.migrated("traces_stored")
        let folder = try TestDatabase.temporaryFolder("traces-stored")
        defer { try? FileManager.default.removeItem(at: folder) }
        let setup = try Self.setup()
        try await TestDatabase.withConnection(configuration) { [setup] connection in
            let traced = setup.before.filter { setup.traced.contains($0.sessionID) }
            _ = try EventStore().write(traced, on: connection, receivedAt: Date())
            #expect(try TraceBuilder().catchUp(on: connection, buckets: nil) == setup.traced.count)
            let pending = setup.before.filter { setup.pending.contains($0.sessionID) }
            _ = try EventStore().write(pending, on: connection, receivedAt: Date())
        }
        let path = folder.appendingPathComponent("more.jsonl").path
        try Data(setup.file.map { $0.jsonLine + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        // Small batches: a session's events are stored by several statements, on two connections.
        var ingester = EventIngester(options: IngestOptions(batchSize: 37))
        ingester.storedEventsLimit = 10_000
        let (summary, kept) = try await ingester.ingestKeeping([path], into: configuration)
        let stored = try #require(kept)
        let before = Set(setup.before.map(\.eventID))
        #expect(summary.inserted == Set(setup.file.map(\.eventID)).subtracting(before).count)
        #expect(stored.sessions.values.contains { $0.statements > 1 })
        let rebuilt = try await BlockingIO.run {
            var connections = stored.takeConnections(for: configuration)
            #expect(connections.count == 2)
            let connection = try connections.popLast() ?? PostgresConnection(configuration: configuration)
            defer { connection.close() }
            // Parts and batches as a large ingest's: two connections, several batches each.
            var builder = TraceBuilder()
            builder.parallelFrom = 10
            builder.batchSize = 16
            return try builder.catchUp(on: connection, more: connections, parts: 2, ifAtMost: 1_000, stored: stored)
        }
        // Every session was marked; only the new ones are all in the file.
        #expect(rebuilt == TraceBuilder.Rebuilt(built: 60, encoded: setup.new.count))
        let result = try await TestDatabase.withConnection(configuration) { try TraceVerifier().verify(on: $0) }
        #expect(result.sessions == 60)
        #expect(result.pending == 0)
        #expect(result.differing.isEmpty)
        #expect(result.isConsistent)
    }

    /// Without migration 0008's column (a database migrated by an older release, or one whose
    /// server does not say whose marks are whose) nothing is encoded: every trace is read back.
    @Test func withoutTheWritersColumnEverySessionIsReadBack() async throws {
        let configuration = try await TestDatabase.migrated("traces_stored_old")
        let folder = try TestDatabase.temporaryFolder("traces-stored-old")
        defer { try? FileManager.default.removeItem(at: folder) }
        let setup = try Self.setup()
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("ALTER TABLE trace_dirty DROP COLUMN writer")
        }
        let path = folder.appendingPathComponent("new.jsonl").path
        let events = setup.file.filter { setup.new.contains($0.sessionID) }
        try Data(events.map { $0.jsonLine + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        var ingester = EventIngester(options: IngestOptions(batchSize: 37))
        ingester.storedEventsLimit = 10_000
        let stored = try #require(try await ingester.ingestKeeping([path], into: configuration).stored)
        let rebuilt = try await TestDatabase.withConnection(configuration) { connection in
            try TraceBuilder().catchUp(on: connection, parts: 1, ifAtMost: 1_000, stored: stored)
        }
        #expect(rebuilt == TraceBuilder.Rebuilt(built: setup.new.count, encoded: 0))
        let result = try await TestDatabase.withConnection(configuration) { try TraceVerifier().verify(on: $0) }
        #expect(result.isConsistent && result.sessions == setup.new.count)
    }

    /// Other connections to the database than `connection`, once those closing have gone (a
    /// closed connection's server process exits a moment after).
    static func otherBackends(on connection: PostgresConnection) throws -> Int {
        var count = 0
        for _ in 0..<50 {
            count =
                try connection.query(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """
                ).first?[0].int ?? -1
            if count == 0 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return count
    }

    /// Past the limit nothing is kept, and the writers' connections are closed, not left; a
    /// catch-up given the writers' connections closes them when it does nothing.
    @Test func pastTheLimitNothingIsKept() async throws {
        let configuration = try await TestDatabase.migrated("traces_stored_limit")
        let folder = try TestDatabase.temporaryFolder("traces-stored-limit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let setup = try Self.setup()
        let path = folder.appendingPathComponent("all.jsonl").path
        try Data(setup.file.map { $0.jsonLine + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        var ingester = EventIngester(options: IngestOptions(batchSize: 37))
        ingester.storedEventsLimit = 100
        let (summary, stored) = try await ingester.ingestKeeping([path], into: configuration)
        #expect(summary.inserted > 100)
        #expect(stored == nil)
        #expect(try await TestDatabase.withConnection(configuration) { try Self.otherBackends(on: $0) } == 0)

        // Within the limit, but more sessions await than the catch-up's limit.
        let again = folder.appendingPathComponent("again.jsonl").path
        let events = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 72).session(0).events
        try Data(events.map { $0.jsonLine + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: again))
        ingester.storedEventsLimit = 10_000
        let kept = try #require(try await ingester.ingestKeeping([again], into: configuration).stored)
        try await BlockingIO.run {
            var connections = kept.takeConnections(for: configuration)
            #expect(connections.count == 2)
            let connection = try connections.popLast() ?? PostgresConnection(configuration: configuration)
            defer { connection.close() }
            let rebuilt = try TraceBuilder().catchUp(
                on: connection, more: connections, parts: 2, ifAtMost: 1, stored: kept)
            #expect(rebuilt == nil)
            // Closed by the catch-up, not by their last reference going.
            let others = try Self.otherBackends(on: connection)
            withExtendedLifetime(connections) {}
            #expect(others == 0)
        }
    }
}
