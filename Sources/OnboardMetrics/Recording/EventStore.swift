import Foundation

/// Writes batches of validated events into the `events` table (and `sessions`, for
/// `session_started` events) with binary COPY.
///
/// A duplicate `event_id` is dropped by the database, never stored twice and never failing the
/// batch: the batch is first copied straight into `events` (the common case, at COPY speed);
/// only if that hits a unique violation is it copied into a temporary staging table and moved
/// with `INSERT ... ON CONFLICT DO NOTHING`.
public struct EventStore: Sendable {
    /// What one write did.
    public struct WriteResult: Sendable, Hashable {
        /// Events newly stored.
        public var inserted: Int
        /// Events already stored (same `event_id`), dropped.
        public var duplicates: Int
    }

    /// The columns of `events`, in the order batches are copied.
    static let columns =
        "event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"

    /// Creates a store.
    public init() {}

    /// Stores `events` in one transaction: all of them are committed, or none.
    /// - Parameters:
    ///   - events: validated events (see ``EventValidator``).
    ///   - connection: the database.
    ///   - receivedAt: the server-side receipt time given to events that carry none.
    /// - Returns: how many were new and how many were duplicates.
    /// - Throws: `PostgresError` (a lost connection is `.connectionLost`: retry the whole batch).
    @discardableResult
    public func write(_ events: [Event], on connection: PostgresConnection, receivedAt: Date) throws -> WriteResult {
        guard !events.isEmpty else { return WriteResult(inserted: 0, duplicates: 0) }
        let received = PostgresValue.postgresMicroseconds(receivedAt)
        do {
            let inserted = try connection.transaction { connection in
                let inserted = try connection.copyIn("COPY events (\(Self.columns)) FROM STDIN (FORMAT binary)") {
                    try Self.encode(events, receivedAt: received, into: &$0)
                }
                try writeSessions(events, on: connection, receivedAt: received)
                return inserted
            }
            return WriteResult(inserted: inserted, duplicates: events.count - inserted)
        } catch let error as PostgresError where error.sqlState == "23505" {
            return try writeDeduplicating(events, on: connection, receivedAt: received)
        }
    }

    /// Makes sure monthly partitions exist for the months of these instants.
    /// - Throws: `PostgresError`.
    public func ensurePartitions(from: Date, to: Date, on connection: PostgresConnection) throws {
        try connection.query("SELECT onboardmetrics_ensure_partitions($1, $2)", [.timestamp(from), .timestamp(to)])
    }

    private func writeDeduplicating(_ events: [Event], on connection: PostgresConnection, receivedAt: Int64) throws
        -> WriteResult
    {
        try connection.transaction { connection in
            try connection.query(
                "CREATE TEMPORARY TABLE IF NOT EXISTS events_staging (LIKE events INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
            )
            try connection.copyIn("COPY events_staging (\(Self.columns)) FROM STDIN (FORMAT binary)") {
                try Self.encode(events, receivedAt: receivedAt, into: &$0)
            }
            let inserted = try connection.query(
                """
                INSERT INTO events (\(Self.columns))
                SELECT \(Self.columns) FROM events_staging
                ON CONFLICT (event_id, session_id) DO NOTHING
                """
            ).affectedRows
            try writeSessions(events, on: connection, receivedAt: receivedAt)
            return WriteResult(inserted: inserted, duplicates: events.count - inserted)
        }
    }

    /// One row per `session_started`, its properties' `context` as the session context; a session
    /// already stored is left as it is.
    private func writeSessions(_ events: [Event], on connection: PostgresConnection, receivedAt: Int64) throws {
        let starts = events.filter { $0.kind == .sessionStarted }
        guard !starts.isEmpty else { return }
        try connection.query(
            "CREATE TEMPORARY TABLE IF NOT EXISTS sessions_staging (LIKE sessions INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
        )
        try connection.copyIn(
            "COPY sessions_staging (session_id, user_id, flow_id, flow_version, context, started_at, received_at) FROM STDIN (FORMAT binary)"
        ) { writer in
            for event in starts {
                writer.beginRow(fieldCount: 7)
                writer.write(uuid: event.sessionID)
                try writer.write(text: event.userID)
                try writer.write(text: event.flowID)
                if let version = event.flowVersion { writer.write(int32: Int32(version)) } else { writer.writeNull() }
                var context: [UInt8] = []
                if case .object(let object) = event.properties["context"] {
                    JSONWriter.appendObject(object, to: &context)
                } else {
                    context = Array("{}".utf8)
                }
                try writer.write(jsonb: String(decoding: context, as: UTF8.self))
                writer.write(timestamp: event.correctedTime)
                writer.write(
                    timestampMicroseconds: event.receivedAt.map(PostgresValue.postgresMicroseconds) ?? receivedAt)
                try writer.endRow()
            }
        }
        try connection.query(
            "INSERT INTO sessions SELECT * FROM sessions_staging ON CONFLICT (session_id) DO NOTHING")
    }

    /// Encodes events as rows of the `events` columns, in ``columns`` order.
    static func encode(_ events: [Event], receivedAt: Int64, into writer: inout BinaryCopyWriter) throws {
        var properties: [UInt8] = []
        for event in events {
            writer.beginRow(fieldCount: 13)
            writer.write(uuid: event.eventID)
            writer.write(uuid: event.sessionID)
            try writer.write(text: event.userID)
            writer.write(int32: Int32(clamping: event.seq))
            try writer.write(text: event.kind.rawValue)
            try writer.write(text: event.flowID)
            if let version = event.flowVersion {
                writer.write(int32: Int32(clamping: version))
            } else {
                writer.writeNull()
            }
            try writer.write(text: event.stepID)
            try writer.write(text: event.name)
            writer.write(timestamp: event.occurredAt)
            writer.write(timestamp: event.sentAt)
            writer.write(timestampMicroseconds: event.receivedAt.map(PostgresValue.postgresMicroseconds) ?? receivedAt)
            properties.removeAll(keepingCapacity: true)
            JSONWriter.appendObject(event.properties, to: &properties)
            try writer.write(jsonb: String(decoding: properties, as: UTF8.self))
            try writer.endRow()
        }
    }
}
