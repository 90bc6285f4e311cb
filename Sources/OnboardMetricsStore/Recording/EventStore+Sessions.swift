import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

// The `sessions` rows of a batch: one per session start, written beside its events.
extension EventStore {
    /// The first `session_started` event of each session of the batch, as indices into `events`, in
    /// key order like the events (so that concurrent writers of the same sessions cannot deadlock).
    static func sessionStarts(_ events: [Event]) -> [Int] {
        var seen = Set<UUID>()
        var starts = events.indices.filter {
            events[$0].kind == .sessionStarted && seen.insert(events[$0].sessionID).inserted
        }
        starts.sort { orderKey(events[$0].sessionID) < orderKey(events[$1].sessionID) }
        return starts
    }

    /// One row per session start (``sessionStarts(_:)``), its properties' `context` as the session
    /// context; a session already stored is left as it is. `straight`: copy straight into
    /// `sessions` inside a savepoint, falling back to the staging table only when a session is
    /// already stored.
    func writeSessions(
        _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64, straight: Bool
    ) throws {
        guard !starts.isEmpty else { return }
        if straight {
            try connection.query("SAVEPOINT onboardmetrics_sessions")
            do {
                try copySessions(starts, of: events, into: "sessions", on: connection, receivedAt: receivedAt)
                return
            } catch let error as PostgresError where error.mayBeUniqueViolation {
                try connection.query("ROLLBACK TO SAVEPOINT onboardmetrics_sessions")
            }
        }
        try connection.query(
            """
            CREATE TEMPORARY TABLE IF NOT EXISTS sessions_staging (session_id uuid, user_id text, flow_id text,
                flow_version integer, context jsonb, started_at timestamptz, received_at timestamptz)
            ON COMMIT DELETE ROWS
            """)
        try copySessions(starts, of: events, into: "sessions_staging", on: connection, receivedAt: receivedAt)
        // `sessions` has no unique constraint but its primary key.
        let columns = Self.sessionColumns
        try connection.query(
            "INSERT INTO sessions (\(columns)) SELECT \(columns) FROM sessions_staging ON CONFLICT DO NOTHING")
    }

    static let sessionColumns = "session_id, user_id, flow_id, flow_version, context, started_at, received_at"

    /// `commit` as for ``copyEvents``.
    func copySessions(
        _ starts: [Int], of events: [Event], into table: String, on connection: PostgresConnection,
        receivedAt: Int64, commit: Bool = false
    ) throws {
        let sql = "COPY \(table) (\(Self.sessionColumns)) FROM STDIN (FORMAT binary)"
        try connection.copyIn(sql, begin: false, commit: commit) { writer in
            var context: [UInt8] = []
            for start in starts {
                let event = events[start]
                writer.beginRow(fieldCount: 7)
                writer.write(uuid: event.sessionID)
                try writer.write(text: event.userID)
                try writer.write(text: event.flowID)
                if let version = event.flowVersion { writer.write(int32: Int32(version)) } else { writer.writeNull() }
                context.removeAll(keepingCapacity: true)
                if case .object(let object) = event.properties["context"] {
                    JSONWriter.appendObject(object, to: &context)
                } else {
                    context.append(contentsOf: "{}".utf8)
                }
                try writer.write(jsonb: String(decoding: context, as: UTF8.self))
                writer.write(timestamp: event.correctedTime)
                writer.write(
                    timestampMicroseconds: event.receivedAt.map(PostgresValue.postgresMicroseconds) ?? receivedAt)
                try writer.endRow()
            }
        }
    }
}

extension EventStore {
    /// Whether any event of session `id` is stored.
    /// - Throws: `PostgresError`.
    public func containsSession(_ id: UUID, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT EXISTS (SELECT 1 FROM events WHERE session_id = $1) AS found", [.uuid(id)])
            .first?["found"].bool ?? false
    }
}
