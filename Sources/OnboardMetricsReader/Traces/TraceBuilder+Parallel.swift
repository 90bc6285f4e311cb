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
        try catchUp(on: connection, parts: parts, waiting: Self.waiting(on: connection, upTo: parallelFrom))
    }

    /// ``catchUp(on:parts:)`` with the sessions awaiting already counted (exactly, or past
    /// ``parallelFrom``). A bulk build (more than ``parallelFrom`` awaiting) then vacuums the
    /// traces when autovacuum would (``VacuumPlan``).
    private func catchUp(on connection: PostgresConnection, parts: Int, waiting: Int) throws -> Int {
        guard waiting > 0 else { return 0 }
        guard waiting > parallelFrom else { return try catchUp(on: connection, buckets: nil) }
        // The vacuum only saves autovacuum's pass: failing to plan or run it (a lock or
        // statement timeout, a cancel) leaves it to autovacuum, never fails the build.
        let plan = try? Self.vacuumPlan(on: connection)
        let rebuilt =
            try parts > 1 ? catchUp(connectionsOf: connection, parts: parts) : catchUp(on: connection, buckets: nil)
        if plan?.vacuums(rebuilt: rebuilt) == true {
            do { try Self.vacuum(on: connection) } catch is PostgresError {}
        }
        return rebuilt
    }

    /// Every bucket's catch-up, on `parts` connections of `connection`'s configuration at once.
    private func catchUp(connectionsOf connection: PostgresConnection, parts: Int) throws -> Int {
        let shares = ShardedReader.split(Array(0..<SessionBucket.count), into: parts)
        let configuration = connection.configuration
        let outcomes = NIOLockedValueBox([Result<Int, any Error>](repeating: .success(0), count: shares.count))
        DispatchQueue.concurrentPerform(iterations: shares.count) { index in
            let outcome = Result { () throws -> Int in
                let share = try PostgresConnection(configuration: configuration)
                defer { share.close() }
                return try catchUp(on: share, buckets: shares[index])
            }
            outcomes.withLockedValue { $0[index] = outcome }
        }
        return try outcomes.withLockedValue { $0 }.reduce(0) { try $0 + $1.get() }
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
    /// report, which builds them in one go either way.
    /// - Returns: the sessions rebuilt, or nil when more than `limit` await or the database has
    ///   no traces (nothing was done).
    /// - Throws: `PostgresError` (42501 for a role that may not write the traces).
    package func catchUp(on connection: PostgresConnection, parts: Int, ifAtMost limit: Int) throws -> Int? {
        guard limit > 0, try Self.isMigrated(on: connection) else { return nil }
        // At most `limit` is an exact count: no second count for the parallel threshold.
        let waiting = try Self.waiting(on: connection, upTo: limit)
        guard waiting <= limit else { return nil }
        return try catchUp(on: connection, parts: parts, waiting: waiting)
    }
}
