import Foundation
import OnboardMetricsPostgres

/// Where a sharded deployment's events live: its shards and the shard of each of the 64
/// ``SessionBucket``s, as the coordinator's `shards` and `shard_buckets` tables say.
///
/// A topology without shards is a single server: the coordinator holds the events itself.
public struct ShardTopology: Sendable, Hashable {
    /// One shard: a PostgreSQL database holding the events of some buckets.
    public struct Shard: Sendable, Hashable, Codable {
        /// The coordinator's id of the shard.
        public var id: Int
        /// The shard's libpq URL or conninfo (it may hold a password: print ``redactedURL``).
        public var url: String
        /// The buckets it holds, ascending.
        public var buckets: [Int]

        /// The URL with any password replaced by `***`.
        public var redactedURL: String { PostgresConfiguration.redact(url) }

        /// Settings that reach the shard.
        public var configuration: PostgresConfiguration { PostgresConfiguration(url) }
    }

    /// The shards, by id.
    public var shards: [Shard]

    /// Creates a topology.
    public init(shards: [Shard]) {
        self.shards = shards.sorted { $0.id < $1.id }
    }

    /// Whether events are spread over shards (else the coordinator holds them).
    public var isSharded: Bool { !shards.isEmpty }

    /// The index in ``shards`` of each bucket's shard (`nil` for a bucket no shard holds).
    public var ownerOfBucket: [Int?] {
        var owners = [Int?](repeating: nil, count: SessionBucket.count)
        for (index, shard) in shards.enumerated() {
            for bucket in shard.buckets where (0..<SessionBucket.count).contains(bucket) { owners[bucket] = index }
        }
        return owners
    }

    /// Buckets no shard holds (empty in a healthy sharded deployment).
    public var unmappedBuckets: [Int] {
        guard isSharded else { return [] }
        return ownerOfBucket.indices.filter { ownerOfBucket[$0] == nil }
    }

    /// Spreads the 64 buckets over `shardCount` shards, bucket `b` to shard `b mod n`: equal shares,
    /// neighbouring buckets on different shards.
    public static func evenSpread(shardCount: Int) -> [Int] {
        guard shardCount > 0 else { return [] }
        return (0..<SessionBucket.count).map { $0 % shardCount }
    }
}
