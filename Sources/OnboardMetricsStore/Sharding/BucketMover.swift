import Foundation
import OnboardMetricsPostgres

/// Moves one bucket's sessions from the shard that holds it to another, as Citus moves a shard:
/// copy its events and sessions (binary COPY out of the source, into the target with the store's
/// dedupe), point the bucket at the target on the coordinator, then delete them from the source.
///
/// Every step can be repeated: a move cut short is finished by running it again (the copy
/// dedupes; the source keeps its rows until the map has changed). Readers only read a shard's
/// own buckets, so rows left behind on the source are never counted twice. Writers route by the
/// topology they started with: stop them during a move (docs/SCALING.md).
public struct BucketMover: Sendable {
    /// What a move did.
    public struct Moved: Sendable, Hashable, Codable {
        public var bucket: Int
        public var events: Int
        public var sessions: Int
    }

    /// Creates a mover.
    public init() {}

    /// Moves `bucket` to the shard with URL `url` (already added).
    /// - Throws: ``ShardingError`` (`.badBucket`, `.unknownShard`), `PostgresError`.
    @discardableResult
    public func move(bucket: Int, to url: String, on coordinator: PostgresConnection) throws -> Moved {
        guard (0..<SessionBucket.count).contains(bucket) else {
            throw ShardingError(.badBucket, "bucket \(bucket) is not in 0..<\(SessionBucket.count)")
        }
        let topology = try ShardCatalog().load(on: coordinator)
        guard let target = topology.shards.first(where: { $0.url == url }) else {
            throw ShardingError(
                .unknownShard,
                "no shard has the URL \(PostgresConfiguration.redact(url)); add it first (funnel shards add)")
        }
        guard let sourceIndex = topology.ownerOfBucket[bucket] else {
            throw ShardingError(.badBucket, "bucket \(bucket) is held by no shard")
        }
        let source = topology.shards[sourceIndex]
        if source.id == target.id { return Moved(bucket: bucket, events: 0, sessions: 0) }
        let from = try PostgresConnection(configuration: source.configuration)
        defer { from.close() }
        let to = try PostgresConnection(configuration: target.configuration)
        defer { to.close() }
        let store = EventStore()
        try store.ensurePartitions(months: try store.partitionMonths(on: from), on: to)
        let moved = try to.transaction { to in
            Moved(
                bucket: bucket, events: try Self.copyEvents(bucket: bucket, from: from, to: to),
                sessions: try Self.copySessions(bucket: bucket, from: from, to: to))
        }
        try coordinator.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.int64(ShardCatalog.lockKey)])
            try connection.query(
                "UPDATE shard_buckets SET shard_id = $1 WHERE bucket = $2",
                [.int32(Int32(target.id)), .int32(Int32(bucket))])
        }
        try from.transaction { from in
            try from.query("DELETE FROM events WHERE onboardmetrics_bucket(session_id) = $1", [.int32(Int32(bucket))])
            try from.query("DELETE FROM sessions WHERE onboardmetrics_bucket(session_id) = $1", [.int32(Int32(bucket))])
        }
        return moved
    }

    /// Copies the bucket's events; returns how many the target did not have yet.
    private static func copyEvents(bucket: Int, from: PostgresConnection, to: PostgresConnection) throws -> Int {
        try to.query("CREATE TEMPORARY TABLE bucket_events (LIKE events INCLUDING DEFAULTS) ON COMMIT DROP")
        // `bucket` is an Int checked against 0..<64: safe to put in the statement (COPY takes no parameters).
        try to.copyIn("COPY bucket_events (\(EventStore.columns)) FROM STDIN (FORMAT binary)") { writer in
            try from.copyOut(
                "COPY (SELECT \(EventStore.columns) FROM events WHERE onboardmetrics_bucket(session_id) = \(bucket)) TO STDOUT (FORMAT binary)"
            ) { row in
                writer.beginRow(fieldCount: 13)
                for column in 0..<2 { try copyUUID(row, column, &writer) }
                try writer.write(text: row.text(2))
                try copyInt32(row, 3, &writer)
                for column in 4..<6 { try writer.write(text: row.text(column)) }
                try copyInt32(row, 6, &writer)
                for column in 7..<9 { try writer.write(text: row.text(column)) }
                for column in 9..<12 { try copyTimestamp(row, column, &writer) }
                try writer.write(jsonb: try row.jsonb(12) ?? "{}")
                try writer.endRow()
            }
        }
        return try to.query(
            "INSERT INTO events SELECT * FROM bucket_events ON CONFLICT (event_id, session_id) DO NOTHING"
        ).affectedRows
    }

    private static func copySessions(bucket: Int, from: PostgresConnection, to: PostgresConnection) throws -> Int {
        let columns = "session_id, user_id, flow_id, flow_version, context, started_at, received_at"
        try to.query("CREATE TEMPORARY TABLE bucket_sessions (LIKE sessions INCLUDING DEFAULTS) ON COMMIT DROP")
        try to.copyIn("COPY bucket_sessions (\(columns)) FROM STDIN (FORMAT binary)") { writer in
            try from.copyOut(
                "COPY (SELECT \(columns) FROM sessions WHERE onboardmetrics_bucket(session_id) = \(bucket)) TO STDOUT (FORMAT binary)"
            ) { row in
                writer.beginRow(fieldCount: 7)
                try copyUUID(row, 0, &writer)
                try writer.write(text: row.text(1))
                try writer.write(text: row.text(2))
                try copyInt32(row, 3, &writer)
                try writer.write(jsonb: try row.jsonb(4) ?? "{}")
                try copyTimestamp(row, 5, &writer)
                try copyTimestamp(row, 6, &writer)
                try writer.endRow()
            }
        }
        return try to.query(
            "INSERT INTO sessions (\(columns)) SELECT \(columns) FROM bucket_sessions ON CONFLICT (session_id) DO NOTHING"
        ).affectedRows
    }

    private static func copyUUID(_ row: BinaryCopyRow, _ column: Int, _ writer: inout BinaryCopyWriter) throws {
        if let value = try row.uuid(column) { writer.write(uuid: value) } else { writer.writeNull() }
    }

    private static func copyInt32(_ row: BinaryCopyRow, _ column: Int, _ writer: inout BinaryCopyWriter) throws {
        if let value = try row.int32(column) { writer.write(int32: value) } else { writer.writeNull() }
    }

    private static func copyTimestamp(_ row: BinaryCopyRow, _ column: Int, _ writer: inout BinaryCopyWriter) throws {
        if let value = try row.timestampMicroseconds(column) {
            writer.write(timestampMicroseconds: value)
        } else {
            writer.writeNull()
        }
    }
}
