import Foundation

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
        /// The partition just rewritten.
        public var partition: ReorderSummary.Partition
        /// Its position, from 1.
        public var position: Int
        /// How many partitions this database has.
        public var count: Int
    }

    /// Creates a reorderer.
    public init() {}

    /// The leaf partitions of `events` that are tables with a primary-key index (foreign tables
    /// are left out), by name, the default partition last.
    /// - Throws: `PostgresError` (SQLSTATE 42P01 when there is no `events` table: not migrated).
    public func partitions(on connection: PostgresConnection) throws -> [Partition] {
        // pg_partition_tree walks pg_inherits to the leaves, so partitions of partitions count too.
        let rows: PostgresRows
        do {
            rows = try connection.query(
                """
                SELECT n.nspname::text AS schema, c.relname::text AS name, ic.relname::text AS index,
                       coalesce(pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT', false) AS is_default,
                       pg_total_relation_size(c.oid) AS bytes
                FROM pg_partition_tree('events'::regclass) t
                JOIN pg_class c ON c.oid = t.relid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_index x ON x.indrelid = c.oid AND x.indisprimary
                JOIN pg_class ic ON ic.oid = x.indexrelid
                WHERE t.isleaf AND c.relkind = 'r'
                ORDER BY is_default, c.relname, n.nspname
                """)
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
    ///   - progress: called after each partition.
    /// - Returns: each partition's rows, sizes and time.
    /// - Throws: `PostgresError` with the server's SQLSTATE (e.g. 42501 without ownership).
    public func reorder(
        on connection: PostgresConnection, shard: String? = nil,
        progress: (Progress) -> Void = { _ in }
    ) throws -> ReorderSummary {
        let start = Date()
        let partitions = try partitions(on: connection)
        var results: [ReorderSummary.Partition] = []
        for (offset, partition) in partitions.enumerated() {
            let partitionStart = Date()
            let table = partition.quotedName
            try connection.query("CLUSTER \(table) USING \(PostgresConnection.quotedIdentifier(partition.index))")
            // CLUSTER leaves the number of rows it wrote in reltuples; ANALYZE may replace it with an estimate.
            let rows = try count(of: partition, on: connection)
            try connection.query("ANALYZE \(table)")
            let bytes = try connection.query(
                "SELECT pg_total_relation_size($1::regclass) AS bytes", [.text(table)]
            ).first?["bytes"].int
            let result = ReorderSummary.Partition(
                shard: shard, schema: partition.schema, name: partition.name, index: partition.index,
                isDefault: partition.isDefault, rows: rows, bytesBefore: partition.bytes,
                bytesAfter: bytes ?? 0, seconds: Date().timeIntervalSince(partitionStart))
            results.append(result)
            progress(Progress(partition: result, position: offset + 1, count: partitions.count))
        }
        return ReorderSummary(partitions: results, seconds: Date().timeIntervalSince(start))
    }

    private func count(of partition: Partition, on connection: PostgresConnection) throws -> Int {
        let tuples = try connection.query(
            "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass", [.text(partition.quotedName)]
        ).first?["n"].double
        // -1 means "never counted"; CLUSTER always counts, so this is only a guard.
        return max(0, Int((tuples ?? 0).rounded()))
    }
}
