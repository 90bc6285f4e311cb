import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// The bucket of a session, computed in Swift, against PostgreSQL's own `uuid_hash` (an independent
/// implementation: the server's C code) and the migration's `onboardmetrics_bucket`.
@Suite struct SessionBucketTests {
    @Test func swiftHashAndBucketEqualPostgreSQLs() async throws {
        let configuration = try await TestDatabase.migrated("session_bucket")
        var random = SeededRandom(seed: 19)
        var generator = UUIDv7Generator()
        // Version 4 and version 7 ids, and the extremes.
        var ids = (0..<1_000).map { _ in UUIDv7Generator.randomV4(using: &random) }
        ids += (0..<1_000).map { index in
            generator.next(at: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)), using: &random)
        }
        ids += [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
        ids += [UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        let sample = ids
        let server = try await TestDatabase.withConnection(configuration) { connection in
            try sample.map { id -> (Int, Int) in
                let row = try connection.query(
                    "SELECT uuid_hash($1) AS hash, onboardmetrics_bucket($1) AS bucket", [.uuid(id)]
                ).first
                return (row?["hash"].int ?? -1, row?["bucket"].int ?? -1)
            }
        }
        var perBucket = Array(repeating: 0, count: SessionBucket.count)
        for (id, (hash, bucket)) in zip(sample, server) {
            #expect(Int(SessionBucket.hash(id)) == hash, "uuid_hash(\(id))")
            #expect(SessionBucket.of(id) == bucket, "bucket of \(id)")
            perBucket[SessionBucket.of(id)] += 1
        }
        // 2,002 ids over 64 buckets: about 31 each; none empty or more than twice that.
        #expect(perBucket.allSatisfy { $0 > 5 && $0 < 65 }, "\(perBucket)")
    }

    @Test func evenSpreadGivesEveryShardItsShare() {
        for shards in 1...5 {
            let owners = ShardTopology.evenSpread(shardCount: shards)
            #expect(owners.count == 64)
            let counts = (0..<shards).map { shard in owners.filter { $0 == shard }.count }
            #expect((counts.max() ?? 0) - (counts.min() ?? 0) <= 1)
        }
        #expect(ShardedReader.split([1, 2, 3, 4, 5], into: 2) == [[1, 3, 5], [2, 4]])
        #expect(ShardedReader.split([1], into: 4) == [[1]])
    }
}
