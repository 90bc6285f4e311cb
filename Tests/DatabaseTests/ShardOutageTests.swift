import Foundation
import OnboardMetricsServerTesting
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// A shard that goes down while events are written: its events wait in its spool, the other
/// shard's land at once, and after the restart everything is stored exactly once — through the
/// recorder (`funnel serve`'s path) and through `funnel ingest`.
@Suite(.serialized) struct ShardOutageTests {
    /// A coordinator and a first shard on the shared test server, a second shard on a cluster of its own.
    static func deployment(_ name: String) async throws -> (
        coordinator: PostgresConfiguration, first: PostgresConfiguration, second: ThrowawayDatabase
    ) {
        let migrator = try Migrator(directory: TestDatabase.migrationsDirectory)
        let second = try await ThrowawayDatabase.start(migrations: migrator)
        let coordinator = try await TestDatabase.migrated("\(name)_coordinator")
        let first = try await TestDatabase.fresh("\(name)_first")
        try await TestDatabase.withConnection(coordinator) { connection in
            try ShardCatalog().add(url: TestDatabase.url(of: first), on: connection, migrator: migrator)
            try ShardCatalog().add(url: second.url, on: connection, migrator: migrator)
        }
        return (coordinator, first, second)
    }

    static func eventCount(_ configuration: PostgresConfiguration) async throws -> (Int, Int) {
        try await TestDatabase.withConnection(configuration) { connection in
            let row = try connection.query("SELECT count(*) AS n, count(DISTINCT event_id) AS d FROM events").first
            return (row?["n"].int ?? -1, row?["d"].int ?? -1)
        }
    }

    @Test func recorderSpoolsTheDownShardsEventsAndDrainsThemAfterTheRestart() async throws {
        let (coordinator, first, second) = try await Self.deployment("outage_recorder")
        defer { second.stop() }
        let folder = try TestDatabase.temporaryFolder("outage-spool")
        defer { try? FileManager.default.removeItem(at: folder) }
        let topology = try ShardCatalog().load(coordinator)
        var settings = EventRecorder.Configuration(database: coordinator)
        settings.spoolDirectory = folder.path
        settings.initialBackoff = 0.05
        settings.maximumBackoff = 0.5
        settings.flushInterval = 0.05
        settings.logger.logLevel = .critical
        let recorder = try ShardedEventRecorder(configuration: settings, topology: topology).started()

        let events = SampleEvents.make(sessions: 400, perSession: 5, seed: 31)
        let onSecond = Set(topology.shards[1].buckets)
        let expectedSecond = events.filter { onSecond.contains(SessionBucket.of($0.sessionID)) }.count
        let half = events.count / 2
        for event in events[..<half] { try recorder.record(event) }
        #expect(await recorder.flush())

        // The second shard stops mid-ingest; the rest of the events keep coming.
        try second.halt()
        for event in events[half...] { try recorder.record(event) }
        #expect(await recorder.flush() == false)
        let (firstCount, _) = try await Self.eventCount(first)
        #expect(firstCount == events.count - expectedSecond)
        #expect(recorder.counters.spooled > 0)

        // Back again: the spool drains; nothing lost, nothing twice.
        try second.restart()
        var flushed = false
        for _ in 0..<100 where !flushed {
            flushed = await recorder.flush()
            if !flushed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(flushed)
        let counters = await recorder.shutdown()
        #expect(counters.committed == events.count)
        #expect(counters.rejected == 0)
        let (secondCount, secondDistinct) = try await Self.eventCount(second.configuration)
        #expect(secondCount == expectedSecond && secondDistinct == expectedSecond)

        // The per-user funnel over the shards (two connections each) equals one server's on the same events.
        let single = try await TestDatabase.migrated("outage_recorder_single")
        let stamped = events.map { event -> Event in
            var copy = event
            copy.receivedAt = copy.sentAt
            return copy
        }
        try await TestDatabase.withConnection(single) { connection in
            _ = try EventStore().write(stamped, on: connection, receivedAt: Date())
        }
        var options = FunnelOptions()
        options.until = Date(timeIntervalSince1970: 1_800_000_000)
        options.unit = .user
        let flow = FlowDefinition(id: "health-study", version: 1, steps: (1..<5).map { Step("step-\($0)") })
        let sharded = ShardedReader(
            reader: SessionReader(), topology: topology, coordinator: coordinator, connectionsPerShard: 2)
        let now = Date()
        let settled = options
        let fromShards = try await sharded.report { FunnelAggregator(flow: flow, options: settled, now: now) }
        let one = ShardedReader(reader: SessionReader(), sources: [.init(configuration: single, buckets: nil)])
        let fromOne = try await one.report { FunnelAggregator(flow: flow, options: settled, now: now) }
        #expect(fromShards == fromOne)
        #expect(fromShards.groups.first?.totals.started == 97)
    }

    @Test func ingestSpoolsTheDownShardsEventsAndTheNextIngestDrainsThem() async throws {
        let (coordinator, first, second) = try await Self.deployment("outage_ingest")
        defer { second.stop() }
        let folder = try TestDatabase.temporaryFolder("outage-ingest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try await FunnelProcess.generate("health-study", sessions: 300, seed: 37, into: folder)
        let url = TestDatabase.url(of: coordinator)

        // The spool is the coordinator's, under the state folder: not where ingest runs.
        let state = folder.appendingPathComponent("state")
        let environment = ["ONBOARDMETRICS_STATE_DIR": state.path]
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)

        try second.halt()
        let during = try await FunnelProcess.run(
            ["ingest", data, "--database-url", url, "--quiet", "--format", "json"], directory: folder,
            environment: environment)
        // Not done while events wait (issue 31, N4): exit 75, said even with --quiet, and counted.
        #expect(during.status == 75, "\(during.errors)")
        #expect(during.errors.contains("wait in the spool"), "\(during.errors)")
        let summary = try JSONDecoder().decode(IngestSummary.self, from: Data(during.output.utf8))
        let spooled = try #require(summary.spool)
        let topology = try ShardCatalog().load(coordinator)
        #expect(spooled.spooled > 0 && spooled.drained == 0)
        #expect(spooled.waiting == [.init(shard: topology.shards[1].id, events: spooled.spooled)])
        #expect(summary.inserted + summary.duplicates + summary.rejected + spooled.spooled == summary.linesRead)
        let (firstCount, _) = try await Self.eventCount(first)
        #expect(firstCount == summary.inserted)
        let spool = URL(fileURLWithPath: spooled.directory).appendingPathComponent("shard-\(topology.shards[1].id)")
        #expect(spooled.directory.hasPrefix(state.path + "/ingest-spool/"))
        #expect(try Self.bytes(in: spool) > 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".onboardmetrics/spool").path))

        // A second run while the shard is still down: still waiting, nothing lost or doubled.
        let still = try await FunnelProcess.run(
            ["ingest", "--database-url", url, "--format", "json"], directory: elsewhere, environment: environment)
        #expect(still.status == 75, "\(still.errors)")

        // Once it is back, an ingest with no files from another folder drains the spool.
        try second.restart()
        let again = try await FunnelProcess.run(
            ["ingest", "--database-url", url, "--format", "json"], directory: elsewhere, environment: environment)
        #expect(again.status == 0, "\(again.errors)")
        let drained = try JSONDecoder().decode(IngestSummary.self, from: Data(again.output.utf8))
        #expect(drained.spool?.drained == spooled.spooled && drained.spool?.waiting == [])

        // The same file into one server: the shards together hold exactly its events.
        let single = try await TestDatabase.migrated("outage_ingest_single")
        let reference = try await FunnelProcess.run(
            ["ingest", data, "--database-url", TestDatabase.url(of: single), "--quiet"], directory: folder)
        #expect(reference.status == 0)
        let (total, _) = try await Self.eventCount(single)
        let (firstAfter, firstDistinct) = try await Self.eventCount(first)
        let (secondAfter, secondDistinct) = try await Self.eventCount(second.configuration)
        #expect(firstAfter == firstDistinct && secondAfter == secondDistinct)
        #expect(firstAfter + secondAfter == total)
        #expect(secondAfter > 0)
        #expect(try Self.bytes(in: spool) == 0)
    }

    /// Bytes of the files in a folder.
    static func bytes(in folder: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).reduce(0) { sum, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return sum + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}
