import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsStore

/// Reads sessions from several sources at once — the shards of a deployment, or one server's
/// buckets split over several connections — each source into a consumer of its own.
///
/// Each source gets a thread, a connection and a consumer of its own; a source reads only its
/// buckets (``SessionReader/buckets``), so every session is read exactly once, complete, on one
/// source. Merging the sources' aggregates (the analysis layer's `SessionAggregator`) gives the
/// report one server would give on the same events.
public struct ShardedReader: Sendable {
    /// Where one part of the sessions is read from.
    public struct Source: Sendable, Hashable {
        /// The database.
        public var configuration: PostgresConfiguration
        /// The buckets read there; `nil` for all (a single server read on one connection).
        public var buckets: [Int]?
        /// The tables read there instead of `events` (a Citus worker's shard tables, quoted);
        /// `nil` for `events`.
        package var tables: [String]?

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
    /// Sessions kept decoded between reports (a long-running dashboard): read from it when it
    /// keeps this reader's sessions (one server, no bounds), else from PostgreSQL.
    public var cache: SessionCache?
    /// Where a report keeps the sessions between runs (a `funnel` command): read from its file,
    /// brought up to date, when it can serve this reader (one server, the traces), else from
    /// PostgreSQL. `nil`: never.
    public var sessionFiles: SessionFileStore?
    /// A connection the deployment's set-up left open for the read's first use (see
    /// ``SpareConnection``).
    package var spare: SpareConnection?

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

    /// A reader of a Citus cluster's workers: each worker's shard tables of `events` on
    /// `connectionsPerWorker` connections of their own, straight from the worker.
    public init(
        reader: SessionReader, placements: CitusPlacements, coordinator: PostgresConfiguration,
        connectionsPerWorker: Int = 1
    ) {
        var sources: [Source] = []
        for worker in placements.workers {
            let tables = worker.tables.map { PostgresConnection.quotedIdentifier($0) }
            for part in Self.split(tables, into: max(1, connectionsPerWorker)) {
                var source = Source(configuration: worker.configuration(from: coordinator), buckets: nil)
                source.tables = part
                sources.append(source)
            }
        }
        self.init(reader: reader, sources: sources)
    }

    /// `buckets` in `parts` round-robin shares (fewer when there are fewer buckets).
    static func split<Element>(_ buckets: [Element], into parts: Int) -> [[Element]] {
        let count = min(parts, buckets.count)
        guard count > 1 else { return [buckets] }
        var shares = Array(repeating: [Element](), count: count)
        for (offset, bucket) in buckets.enumerated() { shares[offset % count].append(bucket) }
        return shares
    }

    /// Whether the sources' buckets (`nil`: all) take in every bucket, each once: the kept
    /// sessions are every bucket's, so a read of some (a shard on the coordinator's server beside
    /// buckets no shard has) reads PostgreSQL instead.
    static func coversEveryBucketOnce(_ sources: [Source]) -> Bool {
        var seen = [Bool](repeating: false, count: SessionBucket.count)
        for bucket in sources.flatMap({ $0.buckets ?? Array(0..<SessionBucket.count) }) {
            guard seen.indices.contains(bucket), !seen[bucket] else { return false }
            seen[bucket] = true
        }
        return !seen.contains(false)
    }

    /// Reads every source in parallel, each into a consumer of its own made by `make`, on
    /// ``BlockingIO``'s threads (libpq blocks), one connection per source.
    /// - Parameters:
    ///   - progress: called with the events read so far over all sources (from the readers' threads, one at a time).
    ///   - make: a new, empty consumer (called once per source).
    /// - Returns: the consumers, in the order of ``sources``.
    /// - Throws: an error of a source (`PostgresError`, or what a consumer threw); the other
    ///   sources are read to their end or their own error first.
    public func read<Consumer: SessionConsumer>(
        progress: @escaping @Sendable (Int) -> Void = { _ in }, _ make: @escaping @Sendable () throws -> Consumer
    ) async throws -> [Consumer] {
        let sources = sources
        let reader = reader
        let spare = spare
        if let cache, sources.allSatisfy({ $0.configuration == cache.configuration && $0.tables == nil }),
            Self.coversEveryBucketOnce(sources),
            let snapshot = try await BlockingIO.run({ try cache.snapshot(for: reader) })
        {
            return try await read(snapshot, parts: sources.count, progress: progress, make)
        }
        if let consumers = try await readSessionFile(progress: progress, make) { return consumers }
        if let server = sharedTraceServer {
            let parts = sources.count
            try await BlockingIO.run { try Self.catchUpTraces(of: server, parts: parts) }
        }
        let counts = NIOLockedValueBox([Int](repeating: 0, count: sources.count))
        return try await withThrowingTaskGroup(of: (Int, Consumer).self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask {
                    try await BlockingIO.run {
                        var consumer = try make()
                        var sourceReader = reader
                        sourceReader.buckets = source.buckets
                        sourceReader.tables = source.tables
                        let connection =
                            try spare?.take(for: source.configuration)
                            ?? PostgresConnection(configuration: source.configuration)
                        defer { connection.close() }
                        try sourceReader.read(on: connection) { read in
                            // Under the lock: progress is told by one thread at a time.
                            counts.withLockedValue { counts in
                                counts[index] = read
                                progress(counts.reduce(0, +))
                            }
                        } _: {
                            try consumer.add($0)
                        }
                        return (index, consumer)
                    }
                }
            }
            var consumers: [Consumer?] = Array(repeating: nil, count: sources.count)
            for try await (index, consumer) in group { consumers[index] = consumer }
            return consumers.compactMap { $0 }
        }
    }
}
