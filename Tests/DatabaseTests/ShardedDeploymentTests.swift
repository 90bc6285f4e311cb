import Foundation
import OnboardMetricsServerTesting
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// A coordinator and two shard clusters (throwaway clusters of their own), driven through the
/// `funnel` executable as a user would: every report through the coordinator equals the report of
/// one server holding the same events, byte for byte of its JSON; a bucket moved to a new shard
/// changes no report; a shard stopped mid-ingest loses nothing once it is back.
@Suite(.serialized) struct ShardedDeploymentTests {
    /// The reports compared (arguments after the command; `--until` fixes the report's end).
    static let reports: [[String]] = [
        ["report", "--flow", flowFile],
        ["report", "--flow", flowFile, "--per", "user", "--by", "platform"],
        ["report", "--steps", "welcome,consent,account", "--per", "user"],
        ["report", "--steps", "welcome,consent", "--order", "any"],
        ["conformance", "--flow", flowFile],
        ["discovery"],
        ["discovery", "--per", "user"],
        ["experiment", "consent-copy", "--metric", "step:consent", "--metric", "completion"],
        ["experiment", "consent-copy", "--metric", "completion", "--per", "user"],
        ["trends", "--flow", flowFile, "--interval", "week"],
        ["compare", "--flow", flowFile, "--property", "platform", "--a", "ios", "--b", "android"],
        [
            "simulate", "--flow", flowFile, "--baseline", flowFile, "--draws", "50", "--seed", "3", "--stratify",
            "platform",
        ],
        ["retention", "--flow", flowFile, "--days", "0,1,7"],
        ["retention", "--flow", flowFile, "--by", "variant:consent-copy", "--per", "session"],
        ["paths", "--flow", flowFile, "--after-drop", "--step", "consent", "--per", "user"],
        ["paths", "--flow", flowFile, "--between", "welcome,consent"],
        ["users", "--flow", flowFile, "--step", "consent", "--status", "dropped", "--per", "user"],
        ["discovery", "--per", "user", "--holdout", "consent-copy", "--holdout-variant", "control"],
        ["correlate", "--flow", flowFile, "--step", "consent", "--per", "user"],
        ["experiment", "consent-copy", "--metric", "step:consent", "--metric", "completion", "--correction", "bh"],
    ]
    static let until = "2100-01-01T00:00:00Z"
    static let flowFile = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path

    /// Runs `funnel ARGS --format json` against `url` and returns its output.
    static func json(_ arguments: [String], url: String) async throws -> String {
        let run = try await FunnelProcess.run(
            arguments + ["--until", until, "--format", "json", "--quiet", "--database-url", url])
        #expect(run.status == 0, "\(arguments): \(run.errors)")
        return run.output
    }

    static func funnel(_ arguments: [String], url: String) async throws -> FunnelProcess.Outcome {
        try await FunnelProcess.run(arguments + ["--quiet", "--database-url", url])
    }

    /// The events of a database, counted, and those outside the buckets it holds.
    static func count(_ configuration: PostgresConfiguration, buckets: [Int]? = nil) async throws -> (Int, Int) {
        try await TestDatabase.withConnection(configuration) { connection in
            let list = (buckets ?? Array(0..<64)).map(String.init).joined(separator: ",")
            let row = try connection.query(
                """
                SELECT count(*) AS n,
                       count(*) FILTER (WHERE NOT onboardmetrics_bucket(session_id) = ANY (string_to_array($1, ',')::int[])) AS stray
                FROM events
                """, [.text(list)]
            ).first
            return (row?["n"].int ?? -1, row?["stray"].int ?? -1)
        }
    }

    @Test func everyReportThroughTheCoordinatorEqualsOneServer() async throws {
        let migrator = try Migrator(directory: TestDatabase.migrationsDirectory)
        async let startedCoordinator = ThrowawayDatabase.start(migrations: migrator)
        async let startedFirst = ThrowawayDatabase.start(migrations: migrator)
        async let startedSecond = ThrowawayDatabase.start(migrations: migrator)
        let (coordinator, first, second) = try await (startedCoordinator, startedFirst, startedSecond)
        defer {
            coordinator.stop()
            first.stop()
            second.stop()
        }
        let single = try await TestDatabase.migrated("shards_single")
        let singleURL = TestDatabase.url(of: single)
        let folder = try TestDatabase.temporaryFolder("shards")
        defer { try? FileManager.default.removeItem(at: folder) }

        // Health-study sessions (experiment, users with several sessions) and spotlight ones (highlights).
        var files: [String] = []
        for (scenario, sessions, seed) in [("health-study", 1500, 23), ("spotlight", 800, 29)] {
            files.append(try await FunnelProcess.generate(scenario, sessions: sessions, seed: seed, into: folder))
        }

        // Two shards; the second URL carries a password (the trust-authenticated cluster ignores it),
        // which no command may print.
        let secondURL = second.url + "&password=s3cr3t-shard"
        for url in [first.url, secondURL] {
            let added = try await Self.funnel(["shards", "add", url], url: coordinator.url)
            #expect(added.status == 0, "\(added.errors)")
            #expect(!added.output.contains("s3cr3t") && !added.errors.contains("s3cr3t"))
        }
        // `funnel migrate` on the coordinator also migrates (here: checks) every shard.
        let migrated = try await FunnelProcess.run(["migrate", "--database-url", coordinator.url])
        #expect(migrated.status == 0, "\(migrated.errors)")
        #expect(migrated.errors.components(separatedBy: "applied 0 migrations").count == 3, "\(migrated.errors)")
        let listed = try await Self.funnel(["shards", "list", "--format", "json"], url: coordinator.url)
        #expect(!listed.output.contains("s3cr3t"))
        let topology = try ShardCatalog().load(coordinator.configuration)
        #expect(topology.shards.map(\.buckets.count) == [32, 32])
        #expect(topology.unmappedBuckets.isEmpty)

        for url in [coordinator.url, singleURL] {
            let ingested = try await Self.funnel(["ingest"] + files, url: url)
            #expect(ingested.status == 0, "\(ingested.errors)")
        }

        // Every event is on the shard of its bucket, none on the coordinator, none lost.
        let (total, _) = try await Self.count(single)
        let (onCoordinator, _) = try await Self.count(coordinator.configuration)
        let (onFirst, strayFirst) = try await Self.count(first.configuration, buckets: topology.shards[0].buckets)
        let (onSecond, straySecond) = try await Self.count(second.configuration, buckets: topology.shards[1].buckets)
        #expect(total > 10_000)
        #expect(onCoordinator == 0)
        #expect(onFirst + onSecond == total)
        #expect(onFirst > total / 3 && onSecond > total / 3)
        #expect(strayFirst == 0 && straySecond == 0)

        for arguments in Self.reports {
            let expected = try await Self.json(arguments, url: singleURL)
            let sharded = try await Self.json(arguments, url: coordinator.url)
            #expect(sharded == expected, "\(arguments)")
        }
        // One server read on four connections, each a quarter of the buckets, gives the same.
        for arguments in [
            Self.reports[1], Self.reports[6], Self.reports[8], Self.reports[11], Self.reports[12], Self.reports[14],
        ] {
            let expected = try await Self.json(arguments, url: singleURL)
            let parallel = try await Self.json(arguments + ["--read-connections", "4"], url: singleURL)
            #expect(parallel == expected, "\(arguments) on 4 connections")
        }

        // SQL on the coordinator sees every event through postgres_fdw, and cannot write.
        let viaForeignTables = try await TestDatabase.withConnection(coordinator.configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM sharded.events").first?["n"].int ?? -1
        }
        #expect(viaForeignTables == total)
        // So does the analysts' role, though neither shard asks for a password (trust authentication).
        let asReader = try await TestDatabase.withConnection(coordinator.configuration) { connection in
            try connection.query("SET ROLE onboardmetrics_reader")
            return try connection.query("SELECT count(*) AS n FROM sharded.events").first?["n"].int ?? -1
        }
        #expect(asReader == total)
        await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(coordinator.configuration) { connection in
                try connection.query("DELETE FROM sharded.events")
            }
        }

        // A third shard (a database of the shared test server) takes six buckets: reports stay equal.
        let third = try await TestDatabase.fresh("shards_third")
        let thirdURL = TestDatabase.url(of: third)
        #expect(try await Self.funnel(["shards", "add", thirdURL], url: coordinator.url).status == 0)
        for bucket in [0, 1, 2, 33, 34, 63] {
            let moved = try await Self.funnel(["shards", "move", String(bucket), thirdURL], url: coordinator.url)
            #expect(moved.status == 0, "\(moved.errors)")
        }
        let after = try ShardCatalog().load(coordinator.configuration)
        #expect(after.shards.map(\.buckets.count) == [29, 29, 6])
        let (onThird, strayThird) = try await Self.count(third, buckets: after.shards[2].buckets)
        let (firstAfter, _) = try await Self.count(first.configuration)
        let (secondAfter, _) = try await Self.count(second.configuration)
        #expect(onThird > 0 && strayThird == 0)
        #expect(firstAfter + secondAfter + onThird == total)
        for arguments in [
            Self.reports[1], Self.reports[2], Self.reports[4], Self.reports[6], Self.reports[8], Self.reports[11],
        ] {
            let expected = try await Self.json(arguments, url: singleURL)
            let sharded = try await Self.json(arguments, url: coordinator.url)
            #expect(sharded == expected, "\(arguments) after moving buckets")
        }

        // A shard with data cannot be removed; the message names it without its password.
        let refused = try await Self.funnel(["shards", "remove", secondURL], url: coordinator.url)
        #expect(refused.status != 0)
        #expect(refused.errors.contains("holds events") && !refused.errors.contains("s3cr3t"))

        // A shard added once there is data starts without buckets, and an empty shard can be removed.
        let fourthURL = TestDatabase.url(of: try await TestDatabase.fresh("shards_fourth"))
        #expect(try await Self.funnel(["shards", "add", fourthURL], url: coordinator.url).status == 0)
        #expect(try ShardCatalog().load(coordinator.configuration).shards.map(\.buckets.count) == [29, 29, 6, 0])
        #expect(try await Self.funnel(["shards", "remove", fourthURL], url: coordinator.url).status == 0)
        #expect(try ShardCatalog().load(coordinator.configuration).shards.map(\.buckets.count) == [29, 29, 6])
    }
}
