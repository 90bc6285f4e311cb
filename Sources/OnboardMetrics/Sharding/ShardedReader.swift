import Dispatch
import Foundation
import Synchronization

/// Reads sessions from several sources at once — the shards of a deployment, or one server's
/// buckets split over several connections — and combines the per-source aggregates.
///
/// Each source gets a thread, a connection and an aggregate of its own; a source reads only its
/// buckets (``SessionReader/buckets``), so every session is read exactly once, complete, on one
/// source. The aggregates are then merged (``ShardMergeable``), which gives the report one server
/// would give on the same events.
public struct ShardedReader: Sendable {
    /// Where one part of the sessions is read from.
    public struct Source: Sendable, Hashable {
        /// The database.
        public var configuration: PostgresConfiguration
        /// The buckets read there; `nil` for all (a single server read on one connection).
        public var buckets: [Int]?

        /// A source.
        public init(configuration: PostgresConfiguration, buckets: [Int]?) {
            self.configuration = configuration
            self.buckets = buckets
        }
    }

    /// The time range and session closing every source reads with.
    public var reader: SessionReader
    /// The sources, read in parallel.
    public var sources: [Source]

    /// A reader of these sources.
    public init(reader: SessionReader, sources: [Source]) {
        self.reader = reader
        self.sources = sources
    }

    /// A reader of a deployment: each shard's buckets on `connectionsPerShard` connections; without
    /// shards, the coordinator's buckets split over `connectionsPerShard` connections (one: the
    /// plain single-server read).
    public init(
        reader: SessionReader, topology: ShardTopology, coordinator: PostgresConfiguration, connectionsPerShard: Int = 1
    ) {
        let split = max(1, connectionsPerShard)
        var sources: [Source] = []
        if topology.isSharded {
            for shard in topology.shards where !shard.buckets.isEmpty {
                for part in Self.split(shard.buckets, into: split) {
                    sources.append(Source(configuration: shard.configuration, buckets: part))
                }
            }
        } else if split == 1 {
            sources = [Source(configuration: coordinator, buckets: nil)]
        } else {
            sources = Self.split(Array(0..<SessionBucket.count), into: split).map {
                Source(configuration: coordinator, buckets: $0)
            }
        }
        self.init(reader: reader, sources: sources)
    }

    /// `buckets` in `parts` round-robin shares (fewer when there are fewer buckets).
    static func split(_ buckets: [Int], into parts: Int) -> [[Int]] {
        let count = min(parts, buckets.count)
        guard count > 1 else { return [buckets] }
        var shares = Array(repeating: [Int](), count: count)
        for (offset, bucket) in buckets.enumerated() { shares[offset % count].append(bucket) }
        return shares
    }

    /// Reads every source in parallel into an aggregate made by `make`, and merges them.
    /// - Parameters:
    ///   - progress: called with the events read so far over all sources (from the readers' threads, one at a time).
    ///   - make: a new, empty aggregate (called once per source).
    /// - Returns: the merged aggregate.
    /// - Throws: the first error of any source (`PostgresError`, or what the aggregate threw).
    package func aggregate<Aggregate: ShardMergeable>(
        progress: @escaping @Sendable (Int) -> Void = { _ in }, _ make: @Sendable () throws -> Aggregate
    ) throws -> Aggregate {
        let sources = sources
        let reader = reader
        let results = Mutex<[Result<Aggregate, any Error>?]>(Array(repeating: nil, count: sources.count))
        let counts = Mutex<[Int]>(Array(repeating: 0, count: sources.count))
        DispatchQueue.concurrentPerform(iterations: sources.count) { index in
            let result = Result<Aggregate, any Error> {
                var aggregate = try make()
                var sourceReader = reader
                sourceReader.buckets = sources[index].buckets
                let connection = try PostgresConnection(configuration: sources[index].configuration)
                defer { connection.close() }
                try sourceReader.read(on: connection) { read in
                    // Under the lock: progress is told by one thread at a time.
                    counts.withLock { counts in
                        counts[index] = read
                        progress(counts.reduce(0, +))
                    }
                } _: {
                    try aggregate.add($0)
                }
                return aggregate
            }
            results.withLock { $0[index] = result }
        }
        var merged: Aggregate?
        for result in results.withLock({ $0 }) {
            guard let result else { continue }
            let aggregate = try result.get()
            if merged == nil {
                merged = aggregate
            } else {
                merged?.merge(aggregate)
            }
        }
        return try merged ?? make()
    }
}
