import OnboardMetricsPostgres

extension ShardedReader {
    /// The server whose traces one catch-up on all the sources' connections brings up to date
    /// before they read: a single server's buckets split over several connections, read through
    /// the traces. `nil` for shards, Citus workers, one connection or the events.
    var sharedTraceServer: PostgresConfiguration? {
        guard sources.count > 1, reader.source != .events, reader.tables == nil,
            let first = sources.first?.configuration,
            sources.allSatisfy({ $0.configuration == first && $0.tables == nil && $0.buckets != nil })
        else { return nil }
        return first
    }

    /// Rebuilds the sessions awaiting it on `parts` connections at once
    /// (``TraceBuilder/catchUp(on:parts:)``), so a bulk build is seen whole and vacuumed after.
    /// Each source's read then finds its buckets up to date. A database without traces, or a
    /// role or server that may not write them, is left to the sources' reads, which fall back to
    /// the events or say why they cannot.
    /// - Throws: `PostgresError` for another failure.
    static func catchUpTraces(of configuration: PostgresConfiguration, parts: Int) throws {
        let connection = try PostgresConnection(configuration: configuration)
        defer { connection.close() }
        _ = try TraceBuilder().catchUpIfWritable(on: connection, parts: parts)
    }
}
