import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsStore

extension TraceBuilder {
    /// Sessions awaiting a rebuild, counted up to `limit + 1` (enough to tell more than `limit`).
    package static func waiting(on connection: PostgresConnection, upTo limit: Int) throws -> Int {
        try connection.query(
            "SELECT count(*) FROM (SELECT DISTINCT session_id FROM trace_dirty LIMIT \(max(0, limit) + 1)) AS waiting"
        )
        .first?[0].int ?? 0
    }

    /// Rebuilds every dirty session: on `connection` when few await, else on `parts` connections
    /// of its configuration at once, each catching up its share of the buckets (split as the
    /// readers split them). A rebuild is PostgreSQL's reading and sorting of the events and this
    /// process's encoding, one core each per connection: the first dashboard page after a bulk
    /// load waited for one connection's.
    /// - Returns: the sessions rebuilt.
    /// - Throws: `PostgresError` (42501 for a role that may not write the traces); with several
    ///   connections, the first share's error once every share has finished.
    @discardableResult
    package func catchUp(on connection: PostgresConnection, parts: Int) throws -> Int {
        try catchUp(
            on: connection, parts: parts, waiting: Self.waiting(on: connection, upTo: parallelFrom), vacuums: true)
    }

    /// ``catchUp(on:parts:)`` with the sessions awaiting already counted (exactly, or past
    /// ``parallelFrom``). A bulk build (more than ``parallelFrom`` awaiting) then vacuums the
    /// traces when autovacuum would (``VacuumPlan``), if `vacuums`.
    private func catchUp(
        on connection: PostgresConnection, parts: Int, waiting: Int, vacuums: Bool
    ) throws -> Int {
        try catchUp(on: connection, more: [], parts: parts, waiting: waiting, vacuums: vacuums, stored: nil).built
    }

    private func catchUp(
        on connection: PostgresConnection, more: [PostgresConnection], parts: Int, waiting: Int, vacuums: Bool,
        stored: StoredTraces?
    ) throws -> Rebuilt {
        guard waiting > parallelFrom else {
            Self.close(more)
            return waiting > 0 ? try catchUp(on: connection, buckets: nil, stored: stored) : Rebuilt()
        }
        // The vacuum only saves autovacuum's pass: failing to plan or run it (a lock or
        // statement timeout, a cancel) leaves it to autovacuum, never fails the build.
        let plan = vacuums ? try? Self.vacuumPlan(on: connection) : nil
        let shares = ShardedReader.split(Array(0..<SessionBucket.count), into: parts)
        let rebuilt = try Self.forEachShare(shares, on: connection, more: more) { share, index in
            try catchUp(on: share, buckets: shares.count > 1 ? shares[index] : nil, stored: stored)
        }.reduce(into: Rebuilt()) {
            $0.built += $1.built
            $0.encoded += $1.encoded
        }
        if plan?.vacuums(rebuilt: rebuilt.built) == true {
            do { try Self.vacuum(on: connection) } catch is PostgresError {}
        }
        return rebuilt
    }

    /// Runs `body` for each share at once, the first on `connection`, the others on `more` (closed
    /// after) and then on connections of its configuration of their own.
    /// - Returns: the shares' results, in order.
    /// - Throws: the first share's error, once every share has finished.
    static func forEachShare<Share, Result: Sendable>(
        _ shares: [Share], on connection: PostgresConnection, more: [PostgresConnection] = [],
        _ body: @Sendable (PostgresConnection, Int) throws -> Result
    ) throws -> [Result] {
        guard shares.count > 1 else {
            close(more)
            return try shares.indices.map { try body(connection, $0) }
        }
        let configuration = connection.configuration
        let outcomes = NIOLockedValueBox([Swift.Result<Result, any Error>?](repeating: nil, count: shares.count))
        // Each connection is used by one share's thread while this one waits.
        let given = ([connection] + more).map(UncheckedConnection.init)
        close(given.dropFirst(shares.count).map(\.connection))
        DispatchQueue.concurrentPerform(iterations: shares.count) { index in
            let outcome = Swift.Result { () throws -> Result in
                if index == 0 { return try body(given[0].connection, index) }
                let share =
                    try index < given.count ? given[index].connection : PostgresConnection(configuration: configuration)
                defer { share.close() }
                return try body(share, index)
            }
            outcomes.withLockedValue { $0[index] = outcome }
        }
        return try outcomes.withLockedValue { $0 }.map { outcome in
            // concurrentPerform returns once every iteration has run, so none is missing.
            guard let outcome else { throw PostgresError(.invalidValue, "a share of the build did not run") }
            return try outcome.get()
        }
    }

    /// A connection handed to another thread for the length of a call that waits for it.
    private struct UncheckedConnection: @unchecked Sendable {
        var connection: PostgresConnection
    }

    /// ``catchUp(on:parts:)`` where this role and server may: false, having done nothing, for a
    /// database without the traces (migrations 0006 and 0007), a role that may not write them
    /// (42501) or a read-only server (25006). The readers then read the events instead.
    /// - Throws: `PostgresError` for another failure.
    package func catchUpIfWritable(on connection: PostgresConnection, parts: Int) throws -> Bool {
        guard try Self.isMigrated(on: connection) else { return false }
        do {
            try catchUp(on: connection, parts: parts)
        } catch let error as PostgresError where error.sqlState == "42501" || error.sqlState == "25006" {
            return false
        }
        return true
    }

    /// Rebuilds the dirty sessions when at most `limit` await: what a writer runs after a small
    /// write, so the next report only reads the traces. More (a bulk load's) are left to the first
    /// report, which builds them in one go either way. No vacuum: a writer leaves the traces' to
    /// autovacuum as it leaves the events'.
    /// - Parameter stored: the events the writer stored and kept: the sessions whose events they
    ///   all are are encoded from them (``StoredTraces``), where the database can tell
    ///   (migration 0008) and stores text as UTF-8 (else a kept string's bytes might not be the
    ///   stored ones).
    /// - Returns: the sessions rebuilt and how many were encoded from `stored`, or nil when more
    ///   than `limit` await or the database has no traces (nothing was done).
    /// - Throws: `PostgresError` (42501 for a role that may not write the traces).
    /// - Parameter more: connections to the same server for the other parts, taken over (and
    ///   closed); the parts open their own beyond them.
    package func catchUp(
        on connection: PostgresConnection, more: [PostgresConnection] = [], parts: Int, ifAtMost limit: Int,
        stored: StoredSessions? = nil
    ) throws -> Rebuilt? {
        // Taken over from here: closed unless the catch-up takes them.
        var unused = more
        defer { Self.close(unused) }
        guard limit > 0 else { return nil }
        // The kept strings are the bytes the client sent: they are the stored ones when the
        // server keeps text as UTF-8 and the client sent UTF-8 (the writers' connections were
        // opened with this configuration, so with this connection's client encoding).
        let row = try connection.query(
            """
            SELECT \(Self.migrated),
                EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('trace_dirty')
                    AND attname = 'writer' AND NOT attisdropped)
                AND current_setting('server_encoding') = 'UTF8' AND current_setting('client_encoding') = 'UTF8'
            """
        ).first
        guard row?[0].bool == true else { return nil }
        // At most `limit` is an exact count: no second count for the parallel threshold.
        let waiting = try Self.waiting(on: connection, upTo: limit)
        guard waiting <= limit else { return nil }
        // Encoding starts now, beside the catch-up: only once it is sure to run.
        let traces = row?[1].bool == true ? stored.map { StoredTraces($0, threads: parts) } : nil
        unused = []
        return try catchUp(on: connection, more: more, parts: parts, waiting: waiting, vacuums: false, stored: traces)
    }

    /// Closes connections a catch-up was given and does not use.
    static func close(_ connections: [PostgresConnection]) {
        for connection in connections { connection.close() }
    }
}
