import Foundation
import OnboardMetricsServerTesting
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// Shards are told apart by the database they reach, not by the URL that spells it: the same
/// database under another spelling, or the coordinator itself, is refused as a shard, and a move
/// onto the database a bucket already lives on, or onto a target that does not keep the copied
/// rows, deletes nothing (issue 31, N2).
@Suite(.serialized) struct ShardIdentityTests {
    /// Another spelling of `url`: same database, extra connection parameters.
    static func alias(_ url: String, _ extra: String) -> String {
        url + (url.contains("?") ? "&" : "?") + extra
    }

    static func bucketCounts(_ configuration: PostgresConfiguration) async throws -> [Int: Int] {
        try await TestDatabase.withConnection(configuration) { connection in
            var counts: [Int: Int] = [:]
            for row in try connection.query(
                "SELECT onboardmetrics_bucket(session_id) AS b, count(*) AS n FROM events GROUP BY 1")
            {
                counts[row["b"].int ?? -1] = row["n"].int ?? 0
            }
            return counts
        }
    }

    @Test func aDatabaseIsOneShardWhateverItsURLAndAMoveOntoItselfDeletesNothing() async throws {
        let coordinator = try await TestDatabase.migrated("identity_coordinator")
        let first = try await TestDatabase.fresh("identity_first")
        let second = try await TestDatabase.fresh("identity_second")
        let coordinatorURL = TestDatabase.url(of: coordinator)
        let firstURL = TestDatabase.url(of: first)
        let secondURL = TestDatabase.url(of: second)
        let migrator = try Migrator(directory: TestDatabase.migrationsDirectory)
        let catalog = ShardCatalog()

        _ = try await TestDatabase.withConnection(coordinator) { connection in
            try catalog.add(url: firstURL, on: connection, migrator: migrator)
            // The same database with a password, or with another parameter, is the same shard.
            for spelling in [Self.alias(firstURL, "password=s3cr3t"), Self.alias(firstURL, "application_name=x")] {
                let error = #expect(throws: ShardingError.self) {
                    try catalog.add(url: spelling, on: connection, migrator: migrator)
                }
                #expect(error?.code == .alreadyAdded)
                #expect(error?.message.contains("s3cr3t") == false)
            }
            // The coordinator is never its own shard.
            let error = #expect(throws: ShardingError.self) {
                try catalog.add(url: Self.alias(coordinatorURL, "password=s3cr3t"), on: connection, migrator: migrator)
            }
            #expect(error?.code == .sameDatabase)
            try catalog.add(url: secondURL, on: connection, migrator: migrator)
            #expect(try catalog.load(on: connection).shards.count == 2)
        }

        let folder = try TestDatabase.temporaryFolder("identity")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try await FunnelProcess.generate("health-study", sessions: 300, seed: 5, into: folder)
        let ingested = try await FunnelProcess.run(["ingest", file, "--quiet", "--database-url", coordinatorURL])
        #expect(ingested.status == 0, "\(ingested.errors)")

        let topology = try ShardCatalog().load(coordinator)
        let bucket = try #require(topology.shards[0].buckets.first)
        let before = try await Self.bucketCounts(first)
        let inBucket = try #require(before[bucket])
        #expect(inBucket > 0)

        // A topology an older version let in: the first shard's database a second time.
        let firstAlias = Self.alias(firstURL, "application_name=alias")
        _ = try await TestDatabase.withConnection(coordinator) { connection in
            try connection.query("INSERT INTO shards (url) VALUES ($1)", [.text(firstAlias)])
            let selfMove = #expect(throws: ShardingError.self) {
                try BucketMover().move(bucket: bucket, to: firstAlias, on: connection)
            }
            #expect(selfMove?.code == .sameDatabase)
            let noOp = #expect(throws: ShardingError.self) {
                try BucketMover().move(bucket: bucket, to: firstURL, on: connection)
            }
            #expect(noOp?.code == .alreadyThere)
            try connection.query("DELETE FROM shards WHERE url = $1", [.text(firstAlias)])
        }
        #expect(try await Self.bucketCounts(first) == before)

        // A target that silently drops what it is given: the copy is not verified, nothing moves.
        _ = try await TestDatabase.withConnection(second) { connection in
            try connection.query(
                "CREATE FUNCTION drop_rows() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'")
            try connection.query(
                "CREATE TRIGGER drop_rows BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION drop_rows()")
        }
        _ = try await TestDatabase.withConnection(coordinator) { connection in
            let unverified = #expect(throws: ShardingError.self) {
                try BucketMover().move(bucket: bucket, to: secondURL, on: connection)
            }
            #expect(unverified?.code == .copyNotVerified)
            let owner = try ShardCatalog().load(on: connection).ownerOfBucket[bucket]
            #expect(owner == 0)
        }
        #expect(try await Self.bucketCounts(first) == before)
        _ = try await TestDatabase.withConnection(second) { connection in
            try connection.query("DROP TRIGGER drop_rows ON events")
        }

        // A real move, through a spelling of the target that was never added: every row arrives.
        let moved = try await TestDatabase.withConnection(coordinator) { connection in
            try BucketMover().move(bucket: bucket, to: Self.alias(secondURL, "application_name=y"), on: connection)
        }
        #expect(moved.events == inBucket)
        #expect(moved.sessions > 0)
        #expect(try await Self.bucketCounts(first)[bucket] == nil)
        #expect(try await Self.bucketCounts(second)[bucket] == inBucket)
        #expect(try ShardCatalog().load(coordinator).ownerOfBucket[bucket] == 1)
    }
}
