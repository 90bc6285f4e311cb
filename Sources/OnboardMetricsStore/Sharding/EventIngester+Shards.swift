import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

extension EventIngester {
    /// What a sharded write did: results per file index, and what went through the spools.
    struct ShardedWritten: Sendable {
        var results: [Int: EventStore.WriteResult] = [:]
        /// Events of this run spooled for a shard that was down.
        var spooled = 0
        /// Spooled events (of this run or an earlier one) that landed.
        var drained = 0
        /// Events still waiting in a spool, per shard id.
        var waiting: [Int: Int] = [:]
    }

    /// Writes the parser's batches to their shards until it is done; results per file index.
    ///
    /// One ``BlockingIO`` call splits each batch by shard and hands the parts to one call per
    /// shard (a ``ShardWriter`` with its own connection), through bounded handoffs: the shards are
    /// written in parallel, a slow or down shard holds back only its own parts, and memory stays
    /// bounded.
    /// - Throws: ``ShardingError`` `.badBucket` for an event no shard holds; a `PostgresError` a
    ///   shard refused for good (not a lost connection: that part is spooled).
    static func write(from handoff: BatchHandoff<Batch>, shards: ShardedIngestSettings) async throws
        -> ShardedWritten
    {
        let topology = shards.topology
        let owner = topology.ownerOfBucket
        let parts = topology.shards.map { _ in BatchHandoff<Batch>(capacity: 2) }
        let stopAll: @Sendable () -> Void = {
            handoff.cancel()
            for part in parts { part.cancel() }
        }
        return try await withThrowingTaskGroup(of: ShardedWritten.self) { group in
            for (index, shard) in topology.shards.enumerated() {
                let folder = URL(fileURLWithPath: shards.spoolDirectory).appendingPathComponent("shard-\(shard.id)")
                    .path
                group.addTask {
                    do {
                        return try await BlockingIO.run {
                            var writer = try ShardWriter(shard: shard, spoolDirectory: folder)
                            while let part = parts[index].take() { try writer.write(part.events, file: part.file) }
                            try writer.finish()
                            let written = writer.written
                            return ShardedWritten(
                                results: written.results, spooled: written.spooled, drained: written.drained,
                                waiting: written.waiting > 0 ? [shard.id: written.waiting] : [:])
                        }
                    } catch {
                        stopAll()
                        throw error
                    }
                }
            }
            group.addTask {
                do {
                    try await BlockingIO.run {
                        defer { for part in parts { part.finish() } }
                        while let batch = handoff.take() {
                            var split = Array(repeating: [Event](), count: parts.count)
                            for event in batch.events {
                                let bucket = SessionBucket.of(event.sessionID)
                                guard let index = owner[bucket] else {
                                    throw ShardingError(
                                        .badBucket, "bucket \(bucket) is held by no shard (see `funnel shards list`)")
                                }
                                split[index].append(event)
                            }
                            for (index, events) in split.enumerated() where !events.isEmpty {
                                guard parts[index].put(Batch(file: batch.file, events: events)) else { return }
                            }
                        }
                    }
                } catch {
                    stopAll()
                    throw error
                }
                return ShardedWritten()
            }
            var total = ShardedWritten()
            for try await written in group {
                total.results.merge(written.results) {
                    EventStore.WriteResult(
                        inserted: $0.inserted + $1.inserted, duplicates: $0.duplicates + $1.duplicates)
                }
                total.spooled += written.spooled
                total.drained += written.drained
                total.waiting.merge(written.waiting) { $0 + $1 }
            }
            return total
        }
    }
}
