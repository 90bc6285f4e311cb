import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

extension EventStore {
    /// Creates (if missing) the monthly partitions of these months (``PartitionPlanner`` indexes),
    /// one month at a time: never the months between them.
    /// - Throws: `PostgresError`.
    package func ensurePartitions(months: [Int64], on connection: PostgresConnection) throws {
        for month in months {
            let start = PartitionPlanner.start(ofMonth: month)
            try connection.query("SELECT onboardmetrics_ensure_partitions($1, $1)", [.timestamp(start)])
        }
    }

    /// Creates the partitions `events` need that `planner` does not know of yet (see
    /// ``PartitionPlanner/monthsToCreate(for:now:)``) and marks them known.
    /// - Throws: `PostgresError`.
    package func ensurePartitions(
        for events: [Event], now: Date, planner: inout PartitionPlanner, on connection: PostgresConnection
    ) throws {
        let missing = planner.monthsToCreate(for: events, now: now)
        guard !missing.isEmpty else { return }
        try ensurePartitions(months: missing, on: connection)
        planner.markKnown(missing)
    }

    /// The months that have a partition of `events` (named `events_YYYY_MM` by the migration).
    /// - Throws: `PostgresError`.
    package func partitionMonths(on connection: PostgresConnection) throws -> [Int64] {
        let rows = try connection.query(
            """
            SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass
            """)
        return rows.compactMap { row -> Int64? in
            guard let name = row["name"].string, name.hasPrefix("events_"), name.count == 14 else { return nil }
            let parts = name.dropFirst(7).split(separator: "_")
            guard parts.count == 2, let year = Int64(parts[0]), let month = Int64(parts[1]), (1...12).contains(month)
            else { return nil }
            return year * 12 + month - 1
        }
    }
}

extension EventStore {
    /// PostgreSQL's estimate of the rows of `events` (the planner's statistics of its partitions):
    /// instant, unlike `count(*)`; what a progress bar measures a full read against.
    /// - Throws: `PostgresError`.
    public func estimatedCount(on connection: PostgresConnection) throws -> Double {
        let row = try connection.query(
            """
            SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)::float8 AS rows
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass
            """
        ).first
        return row?["rows"].double ?? 0
    }
}
