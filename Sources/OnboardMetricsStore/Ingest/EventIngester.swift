import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Loads event files (JSONL, or CSV through a column mapping) into the `events` table.
///
/// One thread parses and validates while others write batches with ``EventStore`` (binary COPY,
/// one transaction per batch, duplicates dropped) on ``IngestOptions/writeConnections``
/// connections, with at most one batch more than the writers between them. A bad
/// line is rejected (reported with file and line, and written to a rejects file) and never stops
/// the others; ids are deterministic, so ingesting the same file again adds nothing.
public struct EventIngester: Sendable {
    /// A rejected line.
    public struct Rejection: Sendable, Hashable, CustomStringConvertible {
        /// The input file.
        public var file: String
        /// The line number, from 1 (for a CSV record spanning lines, its first line).
        public var line: Int
        /// Why it was rejected.
        public var reason: String

        public var description: String { "\(file):\(line): \(reason)" }
    }

    /// How far an ingest has come.
    public struct Progress: Sendable, Hashable {
        /// Bytes of input consumed, over all files.
        public var bytesRead: Int
        /// Bytes of input in total.
        public var bytesTotal: Int
        /// Records read so far.
        public var linesRead: Int
    }

    /// How files are read.
    public var options: IngestOptions
    /// Set for a sharded deployment: each batch goes to its sessions' shards (``ShardedIngestSettings``).
    package var shards: ShardedIngestSettings?
    /// Up to how many stored events an unsharded ingest keeps for building their sessions' traces
    /// (``StoredSessions``); 0 keeps none.
    package var storedEventsLimit = 0

    /// Creates an ingester.
    public init(options: IngestOptions = IngestOptions()) {
        self.options = options
    }

    struct Batch: Sendable {
        var file: Int
        var events: [Event]
    }

    /// Ingests `paths` in order into the database. The schema must be migrated.
    /// - Parameters:
    ///   - progress: called from the parsing thread every few thousand lines.
    ///   - rejected: called from the parsing thread for each rejected line.
    /// - Returns: what was read, stored, dropped as duplicate and rejected, per file.
    /// - Throws: ``IngestError`` for an unreadable file or a bad mapping, `PostgresError` from the
    ///   database. Batches committed before the error stay (ingesting again completes the job); if
    ///   the server itself crashed, its last few commits may be lost too (batches commit without
    ///   waiting for the disk until the end), and ingesting again restores them as well.
    public func ingest(
        _ paths: [String], into configuration: PostgresConfiguration,
        progress: @escaping @Sendable (Progress) -> Void = { _ in },
        rejected: @escaping @Sendable (Rejection) -> Void = { _ in }
    ) async throws -> IngestSummary {
        try await ingestKeeping(paths, into: configuration, progress: progress, rejected: rejected).summary
    }

    /// ``ingest(_:into:progress:rejected:)``, also handing over the events it stored when
    /// ``storedEventsLimit`` asks it to keep them (an unsharded ingest).
    package func ingestKeeping(
        _ paths: [String], into configuration: PostgresConfiguration,
        progress: @escaping @Sendable (Progress) -> Void = { _ in },
        rejected: @escaping @Sendable (Rejection) -> Void = { _ in }
    ) async throws -> (summary: IngestSummary, stored: StoredSessions?) {
        let started = Date()
        let options = options
        let handoff = BatchHandoff<Batch>(capacity: max(options.writeConnections, 1) + 1)
        async let parsed = BlockingIO.run {
            defer { handoff.finish() }
            return try Self.parse(paths, options: options, now: options.now ?? started, handoff: handoff) {
                progress($0)
            } rejected: {
                rejected($0)
            }
        }
        var written: [Int: EventStore.WriteResult]
        var sharded: ShardedWritten?
        var stored: StoredSessions?
        do {
            if let shards {
                sharded = try await Self.write(from: handoff, shards: shards)
                written = sharded?.results ?? [:]
            } else {
                (written, stored) = try await Self.write(
                    from: handoff, to: configuration, connections: options.writeConnections,
                    keeping: StoredSessions(limit: storedEventsLimit))
            }
        } catch {
            handoff.cancel()
            _ = try? await parsed
            throw error
        }
        var files = try await parsed
        for index in files.indices {
            files[index].inserted = written[index]?.inserted ?? 0
            files[index].duplicates = written[index]?.duplicates ?? 0
        }
        var summary = IngestSummary(files: files, seconds: Date().timeIntervalSince(started))
        if let sharded, let shards {
            summary.spool = IngestSummary.Spool(
                directory: shards.spoolDirectory, spooled: sharded.spooled, drained: sharded.drained,
                waiting: sharded.waiting.sorted { $0.key < $1.key }.map { .init(shard: $0.key, events: $0.value) })
        }
        return (summary, stored.flatMap { $0.overflowed ? nil : $0 })
    }

    private static func parse(
        _ paths: [String], options: IngestOptions, now: Date, handoff: BatchHandoff<Batch>,
        progress: (Progress) -> Void, rejected: (Rejection) -> Void
    ) throws -> [IngestSummary.File] {
        let sizes = try paths.map { path in
            do {
                return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            } catch {
                throw IngestError(.io, "cannot read \(path): no such file or not readable")
            }
        }
        let total = sizes.reduce(0, +)
        let timestamps = TimestampParser(timeZone: options.timeZone)
        // Every rejects file is checked (and an old one removed) before the first line is stored.
        let shared = try options.rejectsPath.map { try RejectsFile(path: $0, inputs: paths) }
        let beside = try shared == nil ? paths.map { try RejectsFile(path: $0 + ".rejects", inputs: paths) } : []
        var files: [IngestSummary.File] = []
        var done = 0
        var linesBefore = 0
        for (index, path) in paths.enumerated() {
            let format = options.format(of: path)
            let rejects = shared ?? beside[index]
            var parser = EventFileParser(
                path: path, format: format, mapping: options.mapping, timestamps: timestamps, now: now,
                batchSize: Self.batchSize(options, bytes: total))
            parser.eventMapping = options.eventMapping
            let counts = try parser.run(rejects: rejects) { events in
                handoff.put(Batch(file: index, events: events))
            } reject: {
                rejected($0)
            } progress: { bytes, lines in
                progress(Progress(bytesRead: done + bytes, bytesTotal: total, linesRead: linesBefore + lines))
            }
            if shared == nil { try rejects.close() } else { try rejects.flush() }
            done += sizes[index]
            linesBefore += counts.linesRead
            progress(Progress(bytesRead: done, bytesTotal: total, linesRead: linesBefore))
            var file = IngestSummary.File(path: path, format: format)
            file.linesRead = counts.linesRead
            file.rejected = counts.rejected
            file.rejectsFile = counts.rejected > 0 ? rejects.path : nil
            files.append(file)
            if counts.stopped { break }
        }
        try shared?.close()
        return files
    }

    /// The batch size for `bytes` of input: the configured one, but, when the options allow it
    /// (``IngestOptions/adaptsBatchSize``), small enough that every writing connection gets two
    /// batches or more. With one batch for a small load (1 % more events: one
    /// batch of 20,000) one connection wrote while the other waited, and the parser read the whole
    /// file before the first row was sent.
    static func batchSize(_ options: IngestOptions, bytes: Int) -> Int {
        guard options.adaptsBatchSize else { return options.batchSize }
        // About 360 bytes a JSONL line (the generator's); CSV lines are shorter, so fewer events are assumed.
        let events = bytes / 360
        return min(options.batchSize, max(Self.smallestBatch, events / (2 * max(options.writeConnections, 1))))
    }

    /// The smallest batch a small load is cut into: below it, a COPY's fixed cost starts to show.
    static let smallestBatch = 2_000

    /// Writes batches on `options.writeConnections` connections until the parser is done; returns
    /// the results per file index.
    ///
    /// Batches commit without waiting for the WAL flush (`synchronous_commit = off`): a server
    /// crash during the ingest may lose the last few batches, which ingesting again restores (ids
    /// are deterministic), and each writer ends with one transaction that does wait, which flushes
    /// every earlier commit. So the ingest never reports rows that are not on disk, and it no longer
    /// stops for a flush every batch (measured: 23.7 s to 18.8 s on 1.78M events).
    private static func write(
        from handoff: BatchHandoff<Batch>, to configuration: PostgresConfiguration, connections: Int,
        keeping empty: StoredSessions
    ) async throws -> ([Int: EventStore.WriteResult], StoredSessions) {
        let planner = SharedPartitionPlanner()
        typealias Written = ([Int: EventStore.WriteResult], StoredSessions)
        return try await withThrowingTaskGroup(of: Written.self) { group in
            for _ in 0..<max(connections, 1) {
                group.addTask {
                    do {
                        return try await BlockingIO.run {
                            try writeBatches(from: handoff, to: configuration, planner: planner, keeping: empty)
                        }
                    } catch {
                        // Stop the parser and the other writers: their batches in progress commit.
                        handoff.cancel()
                        throw error
                    }
                }
            }
            var results: [Int: EventStore.WriteResult] = [:]
            var stored = empty
            for try await (written, kept) in group {
                results.merge(written) {
                    EventStore.WriteResult(
                        inserted: $0.inserted + $1.inserted, duplicates: $0.duplicates + $1.duplicates)
                }
                stored.merge(kept)
            }
            return (results, stored)
        }
    }

    /// One writer: its own connection, batches from the shared handoff.
    private static func writeBatches(
        from handoff: BatchHandoff<Batch>, to configuration: PostgresConfiguration,
        planner: SharedPartitionPlanner, keeping empty: StoredSessions
    ) throws -> ([Int: EventStore.WriteResult], StoredSessions) {
        let connection = try PostgresConnection(configuration: configuration)
        var stored = empty
        // Left open for the build of the traces when the events are kept.
        var left = false
        defer { if !left { connection.close() } }
        if stored.overflowed {
            try connection.query("SET synchronous_commit = off")
        } else {
            // The writer's name on the marks its statements leave (migration 0008).
            try connection.query(
                "SELECT set_config('synchronous_commit', 'off', false), set_config('onboardmetrics.trace_writer', $1, false)",
                [.text(stored.writer)])
        }
        let store = EventStore()
        var results: [Int: EventStore.WriteResult] = [:]
        var hints = EventStore.WriteHints()
        while let batch = handoff.take() {
            try planner.prepare(for: batch.events, store: store, on: connection)
            let receivedAt = PostgresValue.postgresMicroseconds(Date())
            let (result, rows) = try store.writeRows(
                batch.events, on: connection, receivedAt: receivedAt, hints: &hints)
            stored.add(batch.events, rows: rows, receivedAt: receivedAt)
            var sum = results[batch.file] ?? EventStore.WriteResult(inserted: 0, duplicates: 0)
            sum.inserted += result.inserted
            sum.duplicates += result.duplicates
            results[batch.file] = sum
        }
        try flushCommits(on: connection)
        if !stored.overflowed {
            stored.leave(connection, configuration: configuration)
            left = true
        }
        return (results, stored)
    }

    /// Waits until every transaction this connection committed is on disk: a transaction that
    /// waits for its own commit record waits for all the WAL before it.
    private static func flushCommits(on connection: PostgresConnection) throws {
        // One round trip: the two statements run as one transaction, and assigning it an id
        // makes its commit write (and, with the setting on, flush) a commit record.
        try connection.executeScript("SET synchronous_commit = on; SELECT pg_current_xact_id()")
    }
}
