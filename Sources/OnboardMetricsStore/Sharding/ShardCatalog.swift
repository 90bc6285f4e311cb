import Foundation
import OnboardMetricsPostgres

/// Reads and changes a coordinator's topology (`shards`, `shard_buckets`, migration 0003).
///
/// Changes run in one transaction on the coordinator under an advisory lock, so two `funnel shards`
/// commands never interleave; the shards themselves are only read (and migrated on add).
public struct ShardCatalog: Sendable {
    /// Key of the advisory lock held while the topology changes.
    static let lockKey: Int64 = 0x4F4E_4253_4841_5244  // "ONBSHARD"

    /// Creates a catalog.
    public init() {}

    /// The topology the coordinator holds (no shards: a single server).
    /// - Throws: `PostgresError`.
    public func load(on coordinator: PostgresConnection) throws -> ShardTopology {
        let rows = try coordinator.query(
            """
            SELECT s.shard_id, s.url,
                   coalesce(array_to_string(array_agg(b.bucket ORDER BY b.bucket) FILTER (WHERE b.bucket IS NOT NULL), ','), '') AS buckets
            FROM shards s LEFT JOIN shard_buckets b ON b.shard_id = s.shard_id
            GROUP BY s.shard_id, s.url ORDER BY s.shard_id
            """)
        return ShardTopology(
            shards: rows.map { row in
                ShardTopology.Shard(
                    id: row["shard_id"].int ?? 0, url: row["url"].string ?? "",
                    buckets: (row["buckets"].string ?? "").split(separator: ",").compactMap { Int($0) })
            })
    }

    /// The topology of the database `configuration` reaches.
    /// - Throws: `PostgresError`.
    public func load(_ configuration: PostgresConfiguration) throws -> ShardTopology {
        let connection = try PostgresConnection(configuration: configuration)
        defer { connection.close() }
        return try load(on: connection)
    }

    /// Adds a shard: migrates it, records it and, while no shard holds data yet, spreads the 64
    /// buckets evenly over all shards. Once data exists the new shard starts with no buckets and
    /// takes some with ``BucketMover``.
    ///
    /// Shards are told apart by ``DatabaseIdentity``, never by URL: the coordinator itself, or a
    /// shard's database under another spelling, is refused before anything is written.
    /// - Returns: the new topology.
    /// - Throws: ``ShardingError`` (`.alreadyAdded`, `.sameDatabase`, `.coordinatorHoldsData`), `PostgresError`.
    @discardableResult
    public func add(url: String, on coordinator: PostgresConnection, migrator: Migrator) throws -> ShardTopology {
        let before = try load(on: coordinator)
        let redacted = PostgresConfiguration.redact(url)
        if before.shards.contains(where: { $0.url == url }) {
            throw ShardingError(.alreadyAdded, "\(redacted) is already a shard")
        }
        if !before.isSharded, try Self.holdsData(coordinator) {
            throw ShardingError(
                .coordinatorHoldsData,
                "the coordinator holds events of its own, which a sharded deployment would no longer read; "
                    + "shard a fresh coordinator and ingest into it (or move the events to a shard first)")
        }
        let shard = try PostgresConnection(configuration: PostgresConfiguration(url))
        defer { shard.close() }
        let identity = try DatabaseIdentity.of(shard)
        if identity == (try DatabaseIdentity.of(coordinator)) {
            throw ShardingError(
                .sameDatabase,
                "\(redacted) reaches the coordinator itself (\(identity)); a shard must be another database")
        }
        var anyData = false
        for existing in before.shards {
            let connection = try PostgresConnection(configuration: existing.configuration)
            defer { connection.close() }
            if try DatabaseIdentity.of(connection) == identity {
                throw ShardingError(
                    .alreadyAdded,
                    "\(redacted) reaches the same database as shard \(existing.id) (\(existing.redactedURL)): \(identity)"
                )
            }
            if !anyData, try Self.holdsData(connection) { anyData = true }
        }
        // The shard gets the whole schema before anything is routed to it.
        try migrator.migrate(on: shard)
        if !anyData, try Self.holdsData(shard) { anyData = true }
        try coordinator.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.int64(Self.lockKey)])
            try connection.query("INSERT INTO shards (url) VALUES ($1)", [.text(url)])
            if !anyData { try Self.spreadEvenly(on: connection) }
        }
        return try load(on: coordinator)
    }

    /// Removes a shard that holds no events or sessions; its buckets go to the others evenly.
    /// - Returns: the new topology.
    /// - Throws: ``ShardingError`` (`.unknownShard`, `.holdsData`), `PostgresError`.
    @discardableResult
    public func remove(url: String, on coordinator: PostgresConnection) throws -> ShardTopology {
        let before = try load(on: coordinator)
        let redacted = PostgresConfiguration.redact(url)
        guard let shard = before.shards.first(where: { $0.url == url }) else {
            throw ShardingError(.unknownShard, "no shard has the URL \(redacted) (see `funnel shards list`)")
        }
        let connection = try PostgresConnection(configuration: shard.configuration)
        defer { connection.close() }
        if try Self.holdsData(connection) {
            throw ShardingError(
                .holdsData,
                "\(redacted) holds events; move its buckets to other shards first "
                    + "(funnel shards move BUCKET URL), then remove it")
        }
        try coordinator.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.int64(Self.lockKey)])
            let rest = before.shards.filter { $0.id != shard.id }
            for (offset, bucket) in shard.buckets.enumerated() where !rest.isEmpty {
                try connection.query(
                    "UPDATE shard_buckets SET shard_id = $1 WHERE bucket = $2",
                    [.int32(Int32(rest[offset % rest.count].id)), .int32(Int32(bucket))])
            }
            try connection.query("DELETE FROM shard_buckets WHERE shard_id = $1", [.int32(Int32(shard.id))])
            try connection.query("DELETE FROM shards WHERE shard_id = $1", [.int32(Int32(shard.id))])
        }
        return try load(on: coordinator)
    }

    /// Applies `migrator` to every shard of the coordinator (the coordinator itself is the caller's).
    /// - Returns: per shard (redacted URL), the migrations applied.
    /// - Throws: `PostgresError`.
    public func migrateShards(on coordinator: PostgresConnection, migrator: Migrator) throws -> [(String, [Migration])]
    {
        try load(on: coordinator).shards.map { shard in
            let connection = try PostgresConnection(configuration: shard.configuration)
            defer { connection.close() }
            return (shard.redactedURL, try migrator.migrate(on: connection))
        }
    }

    /// Sets the bucket map to ``ShardTopology/evenSpread(shardCount:)`` over the shards by id.
    private static func spreadEvenly(on connection: PostgresConnection) throws {
        try connection.query(
            """
            WITH ordered AS (SELECT shard_id, row_number() OVER (ORDER BY shard_id) - 1 AS position,
                                    count(*) OVER () AS total FROM shards)
            INSERT INTO shard_buckets (bucket, shard_id)
            SELECT b, o.shard_id FROM generate_series(0, 63) AS b JOIN ordered o ON o.position = b % o.total
            ON CONFLICT (bucket) DO UPDATE SET shard_id = excluded.shard_id
            """)
    }

    /// Whether a database holds any event or session.
    static func holdsData(_ connection: PostgresConnection) throws -> Bool {
        let row = try connection.query(
            "SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM sessions) AS any"
        ).first
        return row?["any"].bool ?? false
    }
}

extension ShardCatalog {
    /// The topology, or none (a single server) when the database predates migration 0003.
    /// - Throws: `PostgresError` other than a missing `shards` table.
    public func loadIfMigrated(on coordinator: PostgresConnection) throws -> ShardTopology {
        do {
            return try load(on: coordinator)
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return ShardTopology(shards: [])
        }
    }
}
