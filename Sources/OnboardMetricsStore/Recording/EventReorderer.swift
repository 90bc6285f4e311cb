import Foundation
import OnboardMetricsPostgres

/// Rewrites the partitions of `events` in primary-key (event-id) order, so that the reports'
/// ordered read (`ORDER BY event_id`, index scans of each partition) reads the heap
/// sequentially instead of visiting a page per row.
///
/// Rows bulk-loaded from files (`funnel ingest`) lie in the heap in file order, session by
/// session; live collector traffic arrives close to key order already. Each partition, the
/// default one included, gets `CLUSTER partition USING its primary-key index` and then
/// `ANALYZE`, one partition at a time: `CLUSTER` holds an `ACCESS EXCLUSIVE` lock on the
/// partition it rewrites (its readers and writers wait) and needs free disk of about the
/// partition's size, so doing one at a time keeps both to one partition's worth.
/// The rows, and so every report's result, stay the same.
///
/// A partition already close to key order is left as it is: before rewriting one, the
/// reorderer measures how often a read in key order would move to another heap page
/// (``pageSwitchesPerRow(of:on:)``), which is what the ordered read costs in buffer visits.
public struct EventReorderer: Sendable {
    /// A partition of `events` and the primary-key index it is ordered by.
    public struct Partition: Sendable, Hashable {
        /// Its schema.
        public var schema: String
        /// Its name.
        public var name: String
        /// Its primary-key index (in the same schema).
        public var index: String
        /// Whether it is the default partition.
        public var isDefault: Bool
        /// Heap, indexes and TOAST, in bytes.
        public var bytes: Int

        /// `schema.name`, quoted for SQL.
        var quotedName: String {
            PostgresConnection.quotedIdentifier(schema) + "." + PostgresConnection.quotedIdentifier(name)
        }
    }

    /// Where a reorder is: called after each partition.
    public struct Progress: Sendable, Hashable {
        /// The partition just looked at: rewritten, or left as it was.
        public var partition: ReorderSummary.Partition
        /// Its position, from 1.
        public var position: Int
        /// How many partitions this database has.
        public var count: Int
    }

    /// A partition is rewritten only when reading it in key order switches heap pages on more
    /// than this share of its rows; `nil` rewrites every partition. A heap in key order switches
    /// once a page (about 0.02 with the events' ~50 rows a page); one bulk-loaded from a file
    /// about 0.5–1. The default, 0.1, leaves live traffic with its late events alone
    /// (0.04–0.05 measured) and rewrites every ingested file.
    public var maximumPageSwitchesPerRow: Double?

    /// Creates a reorderer.
    /// - Parameter maximumPageSwitchesPerRow: see ``maximumPageSwitchesPerRow``; `nil` rewrites
    ///   every partition.
    public init(maximumPageSwitchesPerRow: Double? = 0.1) {
        self.maximumPageSwitchesPerRow = maximumPageSwitchesPerRow
    }

    /// The leaf partitions of `events` that are tables with a primary-key index (foreign tables
    /// are left out), by name, the default partition last.
    /// - Parameter roots: the partitioned tables to list: `events`, or a Citus worker's shard
    ///   tables of it (`events_102008`, ...; plain identifiers).
    /// - Throws: `PostgresError` (SQLSTATE 42P01 when there is no `events` table: not migrated).
    public func partitions(of roots: [String] = ["events"], on connection: PostgresConnection) throws -> [Partition] {
        // pg_partition_tree walks pg_inherits to the leaves, so partitions of partitions count too.
        let rows: PostgresRows
        do {
            rows = try connection.query(
                """
                SELECT n.nspname::text AS schema, c.relname::text AS name, ic.relname::text AS index,
                       coalesce(pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT', false) AS is_default,
                       pg_total_relation_size(c.oid) AS bytes
                FROM unnest($1::text[]) AS root(name)
                CROSS JOIN LATERAL pg_partition_tree(root.name::regclass) t
                JOIN pg_class c ON c.oid = t.relid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_index x ON x.indrelid = c.oid AND x.indisprimary
                JOIN pg_class ic ON ic.oid = x.indexrelid
                WHERE t.isleaf AND c.relkind = 'r'
                ORDER BY is_default, c.relname, n.nspname
                """, [.text("{" + roots.joined(separator: ",") + "}")])
        } catch var error as PostgresError where error.sqlState == "42P01" {
            error.message = "the database has no events table: run `funnel migrate` first"
            throw error
        }
        return try rows.map { row in
            guard let schema = row["schema"].string, let name = row["name"].string, let index = row["index"].string,
                let isDefault = row["is_default"].bool, let bytes = row["bytes"].int
            else { throw PostgresError(.invalidValue, "unexpected NULL in the partition list of events") }
            return Partition(schema: schema, name: name, index: index, isDefault: isDefault, bytes: bytes)
        }
    }

    /// Rewrites every partition of `events` in primary-key order and analyzes it, one at a time,
    /// each statement committed on its own: a failure leaves the partitions done so far done.
    /// - Parameters:
    ///   - connection: the database (its owner of `events`, or a superuser: `CLUSTER` needs that).
    ///   - shard: the shard's redacted URL, recorded in each result; `nil` for a single server.
    ///   - roots: the partitioned tables whose partitions are rewritten (``partitions(of:on:)``).
    ///   - progress: called after each partition.
    /// - Returns: each partition's rows, sizes and time.
    /// - Throws: `PostgresError` with the server's SQLSTATE (e.g. 42501 without ownership).
    public func reorder(
        on connection: PostgresConnection, shard: String? = nil, roots: [String] = ["events"],
        progress: (Progress) -> Void = { _ in }
    ) throws -> ReorderSummary {
        let start = Date()
        let partitions = try partitions(of: roots, on: connection)
        var results: [ReorderSummary.Partition] = []
        for (offset, partition) in partitions.enumerated() {
            let partitionStart = Date()
            let switches = try pageSwitchesPerRow(of: partition, on: connection)
            let result: ReorderSummary.Partition
            if let limit = maximumPageSwitchesPerRow, (switches ?? 0) <= limit {
                result = ReorderSummary.Partition(
                    shard: shard, schema: partition.schema, name: partition.name, index: partition.index,
                    isDefault: partition.isDefault, reordered: false, pageSwitchesPerRow: switches, rows: 0,
                    bytesBefore: partition.bytes, bytesAfter: partition.bytes,
                    seconds: Date().timeIntervalSince(partitionStart))
            } else {
                result = try rewrite(partition, shard: shard, pageSwitchesPerRow: switches, on: connection)
            }
            results.append(result)
            progress(Progress(partition: result, position: offset + 1, count: partitions.count))
        }
        return ReorderSummary(partitions: results, seconds: Date().timeIntervalSince(start))
    }

    /// `CLUSTER` and `ANALYZE` of one partition.
    private func rewrite(
        _ partition: Partition, shard: String?, pageSwitchesPerRow: Double?, on connection: PostgresConnection
    ) throws -> ReorderSummary.Partition {
        let start = Date()
        let table = partition.quotedName
        try connection.query("CLUSTER \(table) USING \(PostgresConnection.quotedIdentifier(partition.index))")
        // CLUSTER leaves the number of rows it wrote in reltuples; ANALYZE may replace it with an estimate.
        let rows = try count(of: partition, on: connection)
        try connection.query("ANALYZE \(table)")
        let bytes = try connection.query(
            "SELECT pg_total_relation_size($1::regclass) AS bytes", [.text(table)]
        ).first?["bytes"].int
        return ReorderSummary.Partition(
            shard: shard, schema: partition.schema, name: partition.name, index: partition.index,
            isDefault: partition.isDefault, reordered: true, pageSwitchesPerRow: pageSwitchesPerRow, rows: rows,
            bytesBefore: partition.bytes, bytesAfter: bytes ?? 0, seconds: Date().timeIntervalSince(start))
    }

    /// How often a read of `partition` in key order moves to another heap page, per row: the
    /// buffer visits of the reports' ordered read beyond one a page. Estimated from 64 runs of 64
    /// rows in key order, each starting at a row of a repeatable sample of about 128 pages, so it
    /// costs a few hundred page reads however large the partition is. It measures local order,
    /// which is what the read pays for: a heap ordered by day but shuffled within each day has a
    /// high `pg_stats.correlation` and still visits a page per row.
    /// - Returns: from about 1 / rows-a-page (in key order) to 1 (every row elsewhere); `nil`
    ///   when the partition has no rows.
    public func pageSwitchesPerRow(of partition: Partition, on connection: PostgresConnection) throws -> Double? {
        let table = partition.quotedName
        let row = try connection.query(
            """
            SELECT count(*) AS rows, count(DISTINCT run) AS runs,
                   count(*) FILTER (WHERE block IS DISTINCT FROM previous) AS switches
            FROM (
                SELECT starts.run, following.block,
                       lag(following.block) OVER (PARTITION BY starts.run ORDER BY following.event_id) AS previous
                FROM (
                    SELECT row_number() OVER () AS run, event_id
                    FROM (
                        SELECT event_id FROM \(table)
                        TABLESAMPLE SYSTEM (least(100, 12800.0 / greatest(1, pg_relation_size($1::regclass) / 8192)))
                        REPEATABLE (16)
                        ORDER BY md5(event_id::text) LIMIT 64
                    ) sampled
                ) starts
                CROSS JOIN LATERAL (
                    SELECT event_id, (ctid::text::point)[0] AS block FROM \(table)
                    WHERE event_id >= starts.event_id ORDER BY event_id LIMIT 64
                ) following
            ) runs
            """, [.text(table)]
        ).first
        guard let rows = row?["rows"].int, let runs = row?["runs"].int, let switches = row?["switches"].int else {
            throw PostgresError(.invalidValue, "unexpected NULL measuring the order of \(partition.name)")
        }
        // Each run's first row is a visit, not a switch.
        guard rows > runs else { return rows == 0 ? nil : 0 }
        return Double(switches - runs) / Double(rows - runs)
    }

    private func count(of partition: Partition, on connection: PostgresConnection) throws -> Int {
        let tuples = try connection.query(
            "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass", [.text(partition.quotedName)]
        ).first?["n"].double
        // -1 means "never counted"; CLUSTER always counts, so this is only a guard.
        return max(0, Int((tuples ?? 0).rounded()))
    }
}
