extension EventIngester {
    /// Writes the parser's batches to their shards until it is done; results per file index.
    static func write(from handoff: BatchHandoff<Batch>, shards: ShardedBatchWriter.Settings) throws
        -> [Int: EventStore.WriteResult]
    {
        let writer = try ShardedBatchWriter(shards)
        defer { writer.close() }
        var results: [Int: EventStore.WriteResult] = [:]
        while let batch = handoff.take() {
            let result = try writer.write(batch.events)
            var sum = results[batch.file] ?? EventStore.WriteResult(inserted: 0, duplicates: 0)
            sum.inserted += result.inserted
            sum.duplicates += result.duplicates
            results[batch.file] = sum
        }
        // A last try for the shards that were down, so their spools drain when they are back.
        _ = try writer.write([])
        return results
    }
}
