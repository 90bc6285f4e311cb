import Dispatch
import Foundation
import Logging
import OnboardMetricsPostgres
import OnboardMetricsSDK
import Synchronization

/// Writes batches of events (`funnel ingest`) to the shards of their sessions: each batch is
/// split by shard and the parts are copied (binary COPY, ``EventStore``) to their shards in
/// parallel, one connection per shard, with the store's dedupe.
///
/// A shard that cannot be reached, or breaks mid-batch, loses nothing: its part of the batch goes
/// to that shard's spool (`SPOOL/shard-ID`, the folder a ``ShardedEventRecorder`` with the same
/// spool drains) and the other shards' parts land. Each later batch retries the shard first, and
/// once it is back its spool is drained into it before new events.
package final class ShardedBatchWriter {
    /// Where the writer sends events.
    package struct Settings: Sendable {
        package var topology: ShardTopology
        /// The spool folder; each shard spools under `shard-ID` in it.
        package var spoolDirectory: String

        package init(topology: ShardTopology, spoolDirectory: String) {
            self.topology = topology
            self.spoolDirectory = spoolDirectory
        }
    }

    /// What the writer did beyond the store's results.
    package struct Outcome: Sendable, Hashable {
        /// Events spooled because their shard was down.
        package var spooled = 0
        /// Events drained from spools into shards that came back.
        package var drained = 0
    }

    private let settings: Settings
    private let writers: [ShardWriter]
    private let owner: [Int?]
    private(set) package var outcome = Outcome()

    package init(_ settings: Settings) throws {
        self.settings = settings
        writers = try settings.topology.shards.map { shard in
            try ShardWriter(
                shard: shard,
                spoolDirectory: URL(fileURLWithPath: settings.spoolDirectory)
                    .appendingPathComponent("shard-\(shard.id)").path)
        }
        owner = settings.topology.ownerOfBucket
    }

    /// Writes one batch: each shard's part on a thread of its own.
    /// - Returns: inserted and duplicate events over the shards that took their part.
    /// - Throws: ``ShardingError`` `.badBucket` for an event no shard holds; a `PostgresError` a
    ///   shard refused for good (not a lost connection: that part is spooled).
    package func write(_ events: [Event]) throws -> EventStore.WriteResult {
        var parts = Array(repeating: [Event](), count: writers.count)
        for event in events {
            let bucket = SessionBucket.of(event.sessionID)
            guard let index = owner[bucket] else {
                throw ShardingError(.badBucket, "bucket \(bucket) is held by no shard (see `funnel shards list`)")
            }
            parts[index].append(event)
        }
        let writers = writers
        let split = parts
        let results = Mutex<[Result<ShardWriter.Written, any Error>?]>(Array(repeating: nil, count: writers.count))
        // Each iteration uses only its own shard's writer.
        DispatchQueue.concurrentPerform(iterations: writers.count) { index in
            let result = Result { try writers[index].write(split[index]) }
            results.withLock { $0[index] = result }
        }
        var sum = EventStore.WriteResult(inserted: 0, duplicates: 0)
        for result in results.withLock({ $0 }) {
            guard let written = try result?.get() else { continue }
            sum.inserted += written.result.inserted
            sum.duplicates += written.result.duplicates
            outcome.spooled += written.spooled
            outcome.drained += written.drained
        }
        return sum
    }

    /// Closes the connections and spools.
    package func close() {
        for writer in writers { writer.close() }
    }
}

/// One shard's connection, partitions and spool. Unchecked: ``ShardedBatchWriter`` calls one
/// shard's writer from one thread at a time (one iteration of its parallel loop per shard).
private final class ShardWriter: @unchecked Sendable {
    struct Written: Sendable {
        var result = EventStore.WriteResult(inserted: 0, duplicates: 0)
        var spooled = 0
        var drained = 0
    }

    let shard: ShardTopology.Shard
    private let store = EventStore()
    private let spool: Spool
    private var connection: PostgresConnection?
    private var partitions = PartitionPlanner()
    private var nextAttempt = Date.distantPast

    init(shard: ShardTopology.Shard, spoolDirectory: String) throws {
        self.shard = shard
        spool = try Spool(directory: spoolDirectory, capacityBytes: 1 << 30, log: { _ in })
    }

    func write(_ events: [Event]) throws -> Written {
        var written = Written()
        guard connect() else {
            if !events.isEmpty { written.spooled = try spoolEvents(events) }
            return written
        }
        do {
            if !spool.isEmpty { written.drained = try drain() }
            if !events.isEmpty { written.result = try store(events) }
        } catch let error as PostgresError where error.isTransient || error.code == .connectionClosed {
            drop()
            if !events.isEmpty { written.spooled = try spoolEvents(events) }
        }
        return written
    }

    private func store(_ events: [Event]) throws -> EventStore.WriteResult {
        guard let connection else { throw PostgresError(.connectionClosed, "not connected") }
        try store.ensurePartitions(for: events, now: Date(), planner: &partitions, on: connection)
        return try store.write(events, on: connection, receivedAt: Date())
    }

    /// Connects unless a recent attempt failed; `false` while the shard is down.
    private func connect() -> Bool {
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

    private func drop() {
        connection?.close()
        connection = nil
        // One attempt a second at most while a shard is down: batches keep flowing to the others.
        nextAttempt = Date().addingTimeInterval(1)
    }

    private func spoolEvents(_ events: [Event]) throws -> Int {
        _ = try spool.append(events)
        Logger(label: "onboardmetrics.shards").warning(
            "shard unreachable; its events are spooled until it is back",
            metadata: ["shard": "\(shard.redactedURL)", "events": "\(events.count)", "spool": "\(spool.directory)"])
        return events.count
    }

    /// Writes the sealed spool segments, removing each once committed (re-reading one that was
    /// half written only finds duplicates, which the store drops).
    private func drain() throws -> Int {
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

    func close() {
        connection?.close()
        connection = nil
        spool.close()
    }
}
