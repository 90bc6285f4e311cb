import Foundation
import OnboardMetricsPostgres

/// Moves one bucket's sessions from the shard that holds it to another, as Citus moves a shard:
/// copy its events and sessions (binary COPY out of the source, into the target with the store's
/// dedupe), check that the target holds every copied row, point the bucket at the target on the
/// coordinator, then delete them from the source.
///
/// The source's `events` and `sessions` stay locked against writes (reads go on) from the copy to
/// the delete, so the rows deleted are exactly the rows copied and verified. The target is found
/// and compared by ``DatabaseIdentity``: a move onto the database the bucket is already on is
/// refused before anything is copied or deleted. Every step can be repeated: a move cut short is
/// finished by running it again (the copy dedupes; the source keeps its rows until the map has
/// changed). Readers only read a shard's own buckets, so rows left behind on the source are never
/// counted twice. Writers route by the topology they started with: stop them during a move
/// (docs/SCALING.md).
public struct BucketMover: Sendable {
    /// What a move did.
    public struct Moved: Sendable, Hashable, Codable {
        public var bucket: Int
        /// Events moved: copied to (or already on) the target, verified there, deleted from the source.
        public var events: Int
        /// Sessions moved, likewise.
        public var sessions: Int
    }

    /// Creates a mover.
    public init() {}

    /// Moves `bucket` to the shard that `url` reaches (added before, under this or another URL).
    /// - Throws: ``ShardingError`` (`.badBucket`, `.unknownShard`, `.alreadyThere`, `.sameDatabase`,
    ///   `.copyNotVerified`), `PostgresError`.
    @discardableResult
    public func move(bucket: Int, to url: String, on coordinator: PostgresConnection) throws -> Moved {
        guard (0..<SessionBucket.count).contains(bucket) else {
            throw ShardingError(.badBucket, "bucket \(bucket) is not in 0..<\(SessionBucket.count)")
        }
        let topology = try ShardCatalog().load(on: coordinator)
        guard let sourceIndex = topology.ownerOfBucket[bucket] else {
            throw ShardingError(.badBucket, "bucket \(bucket) is held by no shard")
        }
        let source = topology.shards[sourceIndex]
        let to = try PostgresConnection(configuration: PostgresConfiguration(url))
        defer { to.close() }
        let targetIdentity = try DatabaseIdentity.of(to)
        let target = try Self.shard(reaching: targetIdentity, url: url, in: topology)
        if target.id == source.id {
            throw ShardingError(
                .alreadyThere,
                "bucket \(bucket) is already on shard \(source.id) (\(source.redactedURL)): nothing to move")
        }
        let from = try PostgresConnection(configuration: source.configuration)
        defer { from.close() }
        if try DatabaseIdentity.of(from) == targetIdentity {
            throw ShardingError(
                .sameDatabase,
                "shards \(source.id) (\(source.redactedURL)) and \(target.id) (\(target.redactedURL)) are the same "
                    + "\(targetIdentity): moving bucket \(bucket) between them would delete it; "
                    + "remove the duplicate shard instead")
        }
        let store = EventStore()
        try store.ensurePartitions(months: try store.partitionMonths(on: from), on: to)
        return try from.transaction { from in
            // Writers wait from here to the delete, so the rows deleted are the rows verified.
            try from.query("LOCK TABLE events, sessions IN SHARE MODE")
            let moved = try to.transaction { to in
                Moved(
                    bucket: bucket, events: try Self.copyEvents(bucket: bucket, from: from, to: to),
                    sessions: try Self.copySessions(bucket: bucket, from: from, to: to))
            }
            // Which id a message without a time was stored under moves with its session: a resend
            // after the move is dropped on the target as it was on the source.
            try to.transaction { to in try Self.copyMessageIDs(bucket: bucket, from: from, to: to) }
            try coordinator.transaction { connection in
                try connection.query("SELECT pg_advisory_xact_lock($1)", [.int64(ShardCatalog.lockKey)])
                try connection.query(
                    "UPDATE shard_buckets SET shard_id = $1 WHERE bucket = $2",
                    [.int32(Int32(target.id)), .int32(Int32(bucket))])
            }
            try from.query("DELETE FROM events WHERE onboardmetrics_bucket(session_id) = $1", [.int32(Int32(bucket))])
            try from.query("DELETE FROM sessions WHERE onboardmetrics_bucket(session_id) = $1", [.int32(Int32(bucket))])
            try from.query(
                "DELETE FROM message_ids WHERE onboardmetrics_bucket(session_id) = $1", [.int32(Int32(bucket))])
            return moved
        }
    }

    /// The shard with this URL, or else the one whose database has `identity`.
    private static func shard(reaching identity: DatabaseIdentity, url: String, in topology: ShardTopology) throws
        -> ShardTopology.Shard
    {
        if let shard = topology.shards.first(where: { $0.url == url }) { return shard }
        for shard in topology.shards where try DatabaseIdentity.of(shard.configuration) == identity {
            return shard
        }
        throw ShardingError(
            .unknownShard,
            "\(PostgresConfiguration.redact(url)) is no shard (\(identity)); add it first (funnel shards add)")
    }

    /// Throws unless every row of `copied` (a temporary table) is in `table` on the target.
    private static func verify(
        _ copied: String, in table: String, key: String, expected: Int, bucket: Int, on to: PostgresConnection
    ) throws {
        // Table names and keys are this file's constants, not input.
        let present =
            try to.query(
                "SELECT count(*) AS n FROM \(copied) c WHERE EXISTS (SELECT 1 FROM \(table) t WHERE \(key))"
            ).first?["n"].int ?? -1
        guard present == expected else {
            throw ShardingError(
                .copyNotVerified,
                "bucket \(bucket): the target holds \(present) of the \(expected) \(table) rows copied; "
                    + "nothing was deleted from the source")
        }
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
        try to.query("INSERT INTO events SELECT * FROM bucket_events ON CONFLICT (event_id, session_id) DO NOTHING")
        let copied = try count("bucket_events", on: to)
        try expectSourceCount(
            copied, "SELECT count(*) AS n FROM events WHERE onboardmetrics_bucket(session_id) = $1", bucket, from)
        try verify(
            "bucket_events", in: "events", key: "t.event_id = c.event_id AND t.session_id = c.session_id",
            expected: copied, bucket: bucket, on: to)
        return copied
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
        try to.query(
            "INSERT INTO sessions (\(columns)) SELECT \(columns) FROM bucket_sessions ON CONFLICT (session_id) DO NOTHING"
        )
        let copied = try count("bucket_sessions", on: to)
        try expectSourceCount(
            copied, "SELECT count(*) AS n FROM sessions WHERE onboardmetrics_bucket(session_id) = $1", bucket, from)
        try verify(
            "bucket_sessions", in: "sessions", key: "t.session_id = c.session_id", expected: copied, bucket: bucket,
            on: to)
        return copied
    }

    /// Copies the bucket's `message_ids` rows (EventStore+MessageIDs.swift), keeping the target's
    /// where both hold one: the target stored its events under those.
    private static func copyMessageIDs(bucket: Int, from: PostgresConnection, to: PostgresConnection) throws {
        let rows = try from.query(
            "SELECT session_id, message_key, event_id, seen_at FROM message_ids WHERE onboardmetrics_bucket(session_id) = $1",
            [.int32(Int32(bucket))])
        // 4 parameters a row, well inside a statement's 65,535.
        for start in stride(from: 0, to: rows.count, by: 10_000) {
            var values: [String] = []
            var parameters: [PostgresValue] = []
            for index in start..<min(start + 10_000, rows.count) {
                let row = rows[index]
                let base = parameters.count
                values.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4))")
                parameters += [row["session_id"], row["message_key"], row["event_id"], row["seen_at"]]
            }
            try to.query(
                "INSERT INTO message_ids (session_id, message_key, event_id, seen_at) VALUES "
                    + values.joined(separator: ", ") + " ON CONFLICT DO NOTHING", parameters)
        }
    }

    private static func count(_ table: String, on connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT count(*) AS n FROM \(table)").first?["n"].int ?? -1
    }

    /// Throws unless the source (locked) still holds exactly the rows that were copied out.
    private static func expectSourceCount(
        _ copied: Int, _ sql: String, _ bucket: Int, _ from: PostgresConnection
    ) throws {
        let onSource = try from.query(sql, [.int32(Int32(bucket))]).first?["n"].int ?? -1
        guard onSource == copied else {
            throw ShardingError(
                .copyNotVerified,
                "bucket \(bucket): \(copied) rows copied but the source holds \(onSource); nothing was deleted")
        }
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
