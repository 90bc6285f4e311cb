import Foundation
import OnboardMetricsPostgres

/// Lays the schema out on a Citus coordinator (a database with the `citus` extension): `events`
/// and `sessions` hash-distributed by `session_id`, colocated, in 64 shards — exactly the tool's
/// 64 ``SessionBucket``s, since Citus slices `uuid_hash` the same way — and the small tables
/// every node joins against as reference tables (a copy on every node).
///
/// Idempotent: what is already distributed is left as it is, so a second `funnel migrate`
/// changes nothing. On a database without Citus, ``isCitus(on:)`` is false and nothing runs.
public struct CitusDistribution: Sendable {
    /// What one run did.
    public struct Summary: Sendable, Hashable, Codable {
        /// Tables this run distributed by `session_id`.
        public var distributed: [String] = []
        /// Tables this run made reference tables.
        public var reference: [String] = []
        /// Functions this run created on the workers.
        public var functions: [String] = []

        /// Whether the run changed nothing (everything was laid out before).
        public var isEmpty: Bool { distributed.isEmpty && reference.isEmpty && functions.isEmpty }
    }

    /// The shards of each distributed table: one per ``SessionBucket``.
    public static let shardCount = SessionBucket.count

    /// Distributed by `session_id`, in this order (`events` colocates with `sessions`).
    static let distributedTables = ["sessions", "events", "message_ids"]

    /// Small tables read with (or beside) the events, in an order where a table's foreign keys
    /// point only to tables before it (Citus requires a reference table's referenced tables to be
    /// reference tables first). The coordinator's own bookkeeping (`schema_migrations`, the plain
    /// shards' `shards`/`shard_buckets`) stays local.
    static let referenceTables = [
        "flows", "experiments", "assignments", "app_keys", "viewers", "cohorts", "cohort_members",
    ]

    /// The schema's functions, made available on the workers for SQL run through the coordinator
    /// (the tool's own reads write them out and need none).
    static let functions = [
        "onboardmetrics_bucket(uuid)", "onboardmetrics_uuidv7_floor(timestamp with time zone)",
    ]

    /// Creates the layout step.
    public init() {}

    /// Whether the connected database is a Citus node (the `citus` extension is installed).
    /// - Throws: `PostgresError`.
    public func isCitus(on connection: PostgresConnection) throws -> Bool {
        try !connection.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'").isEmpty
    }

    /// Distributes what is not distributed yet; run after the migrations.
    /// - Throws: `PostgresError` (e.g. no worker nodes registered, a table missing).
    @discardableResult
    public func distribute(on connection: PostgresConnection) throws -> Summary {
        var summary = Summary()
        let existing = try layout(on: connection)
        if existing["events"] == nil {
            // Session traces (migration 0006) are kept by statement triggers with transition
            // tables, which Citus does not run on a distributed table: on Citus the reports read
            // the events (`--source auto` falls back when the traces are absent).
            try connection.executeScript(
                """
                DROP TRIGGER IF EXISTS events_traces_insert ON events;
                DROP TRIGGER IF EXISTS events_traces_delete ON events;
                DROP TRIGGER IF EXISTS events_traces_update ON events;
                DROP TRIGGER IF EXISTS events_traces_truncate ON events;
                DROP TABLE IF EXISTS session_traces, trace_dirty, trace_removals
                """)
        }
        for table in Self.distributedTables where existing[table] == nil {
            if table == Self.distributedTables[0] {
                try connection.query(
                    "SELECT create_distributed_table($1, 'session_id', shard_count => $2)",
                    [.text(table), .int32(Int32(Self.shardCount))])
            } else {
                try connection.query(
                    "SELECT create_distributed_table($1, 'session_id', colocate_with => $2)",
                    [.text(table), .text(Self.distributedTables[0])])
            }
            summary.distributed.append(table)
        }
        for table in Self.referenceTables where existing[table] == nil {
            guard
                try connection.query("SELECT to_regclass($1) IS NOT NULL AS present", [.text(table)])
                    .first?["present"].bool == true
            else { continue }
            // Citus converts a table's foreign-key neighbours with it (experiments takes
            // assignments along), so each table is looked up again just before.
            guard try layout(on: connection)[table] == nil else { continue }
            try connection.query("SELECT create_reference_table($1)", [.text(table)])
        }
        let after = try layout(on: connection)
        summary.reference = Self.referenceTables.filter { existing[$0] == nil && after[$0] == "n" }
        let distributedFunctions = try connection.query(
            """
            SELECT p.oid::regprocedure::text AS name FROM pg_dist_object o JOIN pg_proc p ON p.oid = o.objid
            WHERE o.classid = 'pg_proc'::regclass
            """
        ).compactMap { $0["name"].string }
        for function in Self.functions where !distributedFunctions.contains(function) {
            try connection.query("SELECT create_distributed_function($1)", [.text(function)])
            summary.functions.append(function)
        }
        return summary
    }

    /// How each table is laid out now: `h` hash-distributed, `n` reference (Citus'
    /// `pg_dist_partition.partmethod`); absent when local.
    /// - Throws: `PostgresError`.
    public func layout(on connection: PostgresConnection) throws -> [String: String] {
        var methods: [String: String] = [:]
        for row in try connection.query(
            "SELECT logicalrelid::regclass::text AS name, partmethod::text AS method FROM pg_dist_partition")
        {
            if let name = row["name"].string, let method = row["method"].string { methods[name] = method }
        }
        return methods
    }
}
