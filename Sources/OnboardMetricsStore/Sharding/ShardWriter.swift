import Foundation
import Logging
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// One shard's side of a sharded ingest: its connection, partitions and spool, owned by the one
/// ``BlockingIO`` call that writes the shard's parts of the batches (see
/// ``EventIngester/write(from:shards:)``).
///
/// A shard that cannot be reached, or breaks mid-batch, loses nothing: its part goes to its spool
/// (`SPOOL/shard-ID`, the folder a ``ShardedEventRecorder`` with the same spool drains), at most
/// one connection attempt a second, and once it is back the spool is drained into it before new
/// events.
struct ShardWriter {
    /// What the writer did with its parts.
    struct Written: Sendable {
        /// Per input file index: events new and already stored.
        var results: [Int: EventStore.WriteResult] = [:]
        /// Events spooled because the shard was down.
        var spooled = 0
        /// Events drained from the spool once the shard was back (this run's or an earlier one's).
        var drained = 0
        /// Events still in the spool at the end: the shard was down to the last try.
        var waiting = 0
    }

    let shard: ShardTopology.Shard
    private let store = EventStore()
    private let spool: Spool
    private var connection: PostgresConnection?
    private var partitions = PartitionPlanner()
    private var nextAttempt = Date.distantPast
    private(set) var written = Written()

    /// Opens the shard's spool (the connection comes with the first part).
    /// - Throws: `RecorderError` `.spool` when the spool folder cannot be used.
    init(shard: ShardTopology.Shard, spoolDirectory: String) throws {
        self.shard = shard
        // Refusing when full, not dropping the oldest: the ingest then stops with the error, and
        // its files (stored once whatever is run again) can be ingested again once the shard is back.
        spool = try Spool(directory: spoolDirectory, capacityBytes: 1 << 30, whenFull: .refuse, log: { _ in })
    }

    /// Writes one part of a batch of input file `file` (or spools it while the shard is down).
    /// - Throws: a `PostgresError` the shard refused for good (not a lost connection: that part is spooled).
    mutating func write(_ events: [Event], file: Int) throws {
        guard connect() else {
            if !events.isEmpty { try spoolEvents(events) }
            return
        }
        do {
            if !spool.isEmpty { written.drained += try drain() }
            if !events.isEmpty {
                let result = try store(events)
                var sum = written.results[file] ?? EventStore.WriteResult(inserted: 0, duplicates: 0)
                sum.inserted += result.inserted
                sum.duplicates += result.duplicates
                written.results[file] = sum
            }
        } catch let error as PostgresError where error.isTransient || error.code == .connectionClosed {
            drop()
            if !events.isEmpty { try spoolEvents(events) }
        }
    }

    /// A last try for a shard that was down, so that its spool drains once it is back; then
    /// counts what still waits in the spool and closes the connection and the spool.
    /// - Throws: as ``write(_:file:)``.
    mutating func finish() throws {
        defer {
            connection?.close()
            connection = nil
            spool.close()
        }
        // The last try is not held back by the once-a-second limit: it is the only one left.
        if connection == nil { nextAttempt = .distantPast }
        try write([], file: 0)
        if !spool.isEmpty {
            spool.sealActiveSegment()
            written.waiting = spool.sealedSegments().reduce(0) { $0 + spool.read(segment: $1).events.count }
        }
    }

    private mutating func store(_ events: [Event]) throws -> EventStore.WriteResult {
        guard let connection else { throw PostgresError(.connectionClosed, "not connected") }
        try store.ensurePartitions(for: events, now: Date(), planner: &partitions, on: connection)
        return try store.write(events, on: connection, receivedAt: Date())
    }

    /// Connects unless a recent attempt failed; `false` while the shard is down.
    private mutating func connect() -> Bool {
        if connection != nil { return true }
        guard Date() >= nextAttempt else { return false }
        do {
            let connection = try PostgresConnection(configuration: shard.configuration)
            partitions = PartitionPlanner()
            partitions.markKnown(try store.partitionMonths(on: connection))
            self.connection = connection
            return true
        } catch {
            drop()
            return false
        }
    }

    private mutating func drop() {
        connection?.close()
        connection = nil
        // One attempt a second at most while a shard is down: batches keep flowing to the others.
        nextAttempt = Date().addingTimeInterval(1)
    }

    private mutating func spoolEvents(_ events: [Event]) throws {
        try spool.append(events)
        written.spooled += events.count
        Logger(label: "onboardmetrics.shards").warning(
            "shard unreachable; its events are spooled until it is back",
            metadata: ["shard": "\(shard.redactedURL)", "events": "\(events.count)", "spool": "\(spool.directory)"])
    }

    /// Writes the sealed spool segments, removing each once committed (re-reading one that was
    /// half written only finds duplicates, which the store drops).
    private mutating func drain() throws -> Int {
        spool.sealActiveSegment()
        var drained = 0
        for segment in spool.sealedSegments() {
            let (events, _) = spool.read(segment: segment)
            if !events.isEmpty { _ = try store(events) }
            spool.remove(segment: segment)
            drained += events.count
        }
        return drained
    }
}
