import Foundation
import OnboardMetricsPostgres

extension ShardedReader {
    /// The sessions of ``sessionFiles``' file, brought up to date and read in as many shares as
    /// the reader has sources, each into a consumer of its own; nil when it cannot serve this
    /// reader (shards, Citus, `--source events`, irregular event ids, a database without traces)
    /// or its records do not decode (the file is then written again next time).
    /// With `--since` / `--until`, the traces with events on both sides of a bound are read from
    /// PostgreSQL, bounded, by the share that met them: the file holds sessions already cut, and
    /// leaving out some of their events may cut them otherwise. A read with `--since` uses a file
    /// that is there and does not write a new one: a report of the last hour would pay for every
    /// trace (a read with `--until` alone reads them all anyway).
    func readSessionFile<Consumer: SessionConsumer>(
        progress: @escaping @Sendable (Int) -> Void, _ make: @escaping @Sendable () throws -> Consumer
    ) async throws -> [Consumer]? {
        guard let store = sessionFiles, reader.source != .events, reader.tables == nil, reader.buckets == nil,
            let configuration = sources.first?.configuration,
            sources.allSatisfy({ $0.configuration == configuration && $0.tables == nil }),
            Self.coversEveryBucketOnce(sources)
        else { return nil }
        let reader = reader
        let parts = sources.count
        let closeAfter = DurationText.microseconds(reader.closeAfter)
        let closeFinishedAfter = reader.closeFinishedAfter.map { DurationText.microseconds($0) }
        let spare = spare
        guard
            let (file, url, pendingConnection) = try await BlockingIO.run({
                try store.refreshed(
                    configuration: configuration, connection: spare?.take(for: configuration),
                    closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter,
                    buildIfMissing: reader.since == nil, parts: parts)
            }), file.irregular.isEmpty,
            // Traces left unread are read in the refresh's snapshot, on its connection.
            file.deferred.isEmpty || (pendingConnection != nil && file.watermark != nil)
        else { return nil }
        let bounds = SessionFile.Bounds(
            since: reader.since.map(SessionReader.boundFloor), until: reader.until.map(SessionReader.boundFloor))
        let people = reader.people
        let cohort = reader.cohort
        do {
            let shares = try file.shares(parts)
            let deferred = !file.deferred.isEmpty
            let watermark = file.watermark ?? 0
            let results = try await withThrowingTaskGroup(of: (Int, Consumer, Int).self) { group in
                // The traces the refresh left unread, read beside the file's shares into a
                // consumer of their own (their records in the file are skipped as changed).
                if deferred {
                    group.addTask {
                        try await BlockingIO.run {
                            guard let connection = pendingConnection?.take(for: configuration) else {
                                throw PostgresError(.connectionClosed, "the refresh's connection was taken twice")
                            }
                            defer { connection.close() }
                            var consumer = try make()
                            let read = try TraceReader(reader: reader).read(writtenFrom: watermark, on: connection) {
                                try consumer.add($0)
                            }
                            // Read only: ends the refresh's snapshot.
                            try connection.query("COMMIT")
                            return (shares.count, consumer, read)
                        }
                    }
                }
                for (index, share) in shares.enumerated() {
                    group.addTask {
                        var consumer = try make()
                        let (events, across) = try file.read(
                            share, bounds: bounds, people: people, cohort: cohort, into: &consumer)
                        guard !across.isEmpty else { return (index, consumer, events) }
                        return try await BlockingIO.run { [consumer] in
                            var consumer = consumer
                            let connection = try PostgresConnection(configuration: configuration)
                            defer { connection.close() }
                            let read = try TraceReader(reader: reader).read(sessions: across, on: connection) {
                                try consumer.add($0)
                            }
                            return (index, consumer, events + read)
                        }
                    }
                }
                var results: [(Int, Consumer, Int)] = []
                for try await result in group { results.append(result) }
                return results.sorted { $0.0 < $1.0 }
            }
            progress(results.reduce(0) { $0 + $1.2 })
            // A file of no records still gives one (empty) consumer, as a read of no sessions does.
            return results.isEmpty ? [try make()] : results.map(\.1)
        } catch let error as SessionFileError {
            store.warn("\(error); this report reads the session traces")
            try? FileManager.default.removeItem(at: url)
            return nil
        }
    }
}
