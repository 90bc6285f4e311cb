import Foundation
import OnboardMetricsPostgres
import OnboardMetricsStore

/// Builds `session_traces` from `events`: the catch-up a report runs first (the sessions the
/// trigger marked dirty, of its buckets), and a rebuild from scratch for `funnel verify --rebuild`.
///
/// Catch-up works in batches of sessions, each one transaction: take a batch's marks out of
/// `trace_dirty` (`DELETE ... RETURNING`), replace their traces by ones encoded from their
/// events rows as they are now (a later statement: it sees at least what the delete saw). A
/// writer's mark committed after the delete's snapshot is not deleted, so no change is lost;
/// writers never wait for a catch-up, nor a catch-up for writers.
package struct TraceBuilder: Sendable {
    /// Sessions per transaction: bounds the memory of a batch's traces.
    package var batchSize = 5_000
    /// With more sessions than this awaiting a rebuild, a catch-up given several connections
    /// uses them (``catchUp(on:parts:)``); with fewer, one more connection costs about what it
    /// saves (a session takes about 60 µs).
    package var parallelFrom = 1_000

    package init() {}

    /// Whether the database has the traces and their change record (migrations 0006 and 0007).
    package static func isMigrated(on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT " + migrated).first?[0].bool ?? false
    }

    /// A condition true when the database has the traces and their change record.
    static let migrated = """
        to_regclass('session_traces') IS NOT NULL AND to_regclass('trace_dirty') IS NOT NULL
            AND to_regclass('trace_removals') IS NOT NULL
        """

    /// `WHERE`/`AND` condition for sessions of `buckets` in a table's `session_id` column; the
    /// buckets are integers, so they are written into the statement (COPY takes no parameters).
    static func bucketCondition(_ buckets: [Int]?) -> String? {
        buckets.map(SessionReader.bucketCondition)
    }

    /// Whether sessions of `buckets` await a rebuild.
    package static func hasDirty(on connection: PostgresConnection, buckets: [Int]?) throws -> Bool {
        let filter = bucketCondition(buckets).map { " WHERE " + $0 } ?? ""
        return try connection.query("SELECT EXISTS (SELECT 1 FROM trace_dirty\(filter))").first?[0].bool ?? false
    }

    /// Rebuilds the dirty sessions of `buckets` (all when `nil`), batch after batch, until a
    /// batch comes back short (sessions marked meanwhile wait for the next catch-up).
    /// - Returns: the sessions rebuilt.
    /// - Throws: `PostgresError` (42501 for a role that may not write the traces).
    @discardableResult
    package func catchUp(on connection: PostgresConnection, buckets: [Int]?) throws -> Int {
        try catchUp(on: connection, buckets: buckets, stored: nil).built
    }

    /// ``catchUp(on:buckets:)``, taking the traces of the sessions whose events are all among
    /// those an ingest kept from them (`stored`, ``StoredTraces/trace(of:marks:)``) instead of
    /// reading them back.
    func catchUp(on connection: PostgresConnection, buckets: [Int]?, stored: StoredTraces?) throws -> Rebuilt {
        var total = Rebuilt()
        var after: UUID?
        while true {
            let (done, last) = try connection.transaction {
                try rebuildBatch(on: $0, buckets: buckets, after: after, stored: stored)
            }
            total.built += done.built
            total.encoded += done.encoded
            if done.built < batchSize { return total }
            after = last
        }
    }

    /// Drops every trace and builds them all again from `events`, on `parts` connections at once.
    /// - Returns: the sessions built.
    @discardableResult
    package func rebuildAll(on connection: PostgresConnection, parts: Int) throws -> Int {
        try connection.transaction { connection in
            // Recorded as removed: a reader keeping sessions between reports drops those that
            // do not come back (sessions whose events are gone).
            try connection.query(
                "WITH gone AS (DELETE FROM session_traces RETURNING session_id) INSERT INTO trace_removals (session_id) SELECT session_id FROM gone"
            )
            try connection.query("INSERT INTO trace_dirty (session_id) SELECT DISTINCT session_id FROM events")
        }
        return try catchUp(on: connection, parts: parts)
    }

    /// Rebuilds the next batch of dirty sessions after `after` in id order: walking the primary
    /// key onwards keeps a catch-up of many batches linear when only some buckets are taken.
    /// - Returns: the sessions taken (`built`) and, of those, the ones encoded from `stored`.
    private func rebuildBatch(
        on connection: PostgresConnection, buckets: [Int]?, after: UUID?, stored: StoredTraces?
    ) throws -> (done: Rebuilt, last: UUID?) {
        try Self.lock(buckets, on: connection)
        // A batch's events (~60k rows for 5,000 sessions) are sorted by session: with the default
        // 4 MB the sort spilled to disk, a third of a rebuild's time. Derived rows need not wait
        // for the flush: a crash that loses the commit loses the marks' deletion with it, and a
        // dashboard past the lost trace reads the rebuilt one (docs/TRACES.md).
        try connection.query(
            "SELECT set_config('work_mem', '64MB', true), set_config('synchronous_commit', 'off', true)")
        var conditions = Self.bucketCondition(buckets).map { [$0] } ?? []
        var parameters: [PostgresValue] = []
        if let after {
            parameters.append(.uuid(after))
            conditions.append("session_id > $\(parameters.count)")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let taken =
            "taken AS (SELECT DISTINCT session_id FROM trace_dirty\(filter) ORDER BY session_id LIMIT \(batchSize))"
        let delete = "DELETE FROM trace_dirty USING taken WHERE trace_dirty.session_id = taken.session_id"
        // Marks committed after this statement's snapshot stay: their sessions wait for the next catch-up.
        var sessions: [UUID]
        var encoded: [Built] = []
        if let stored {
            parameters.append(.text(stored.stored.writer))
            let marks = try connection.query(
                """
                WITH \(taken), gone AS (
                    \(delete)
                    RETURNING trace_dirty.session_id, coalesce(trace_dirty.writer = $\(parameters.count), false) AS mine)
                SELECT session_id, count(*) FILTER (WHERE mine), count(*) FILTER (WHERE NOT mine),
                    EXISTS (SELECT 1 FROM session_traces AS t WHERE t.session_id = gone.session_id)
                FROM gone GROUP BY session_id
                """, parameters)
            sessions = []
            var readBack: [UUID] = []
            for row in marks {
                guard let id = row[0].uuid else { continue }
                sessions.append(id)
                let mark = StoredMarks(mine: row[1].int ?? 0, others: row[2].int ?? 0, traced: row[3].bool ?? true)
                if let built = stored.trace(of: id, marks: mark) { encoded.append(built) } else { readBack.append(id) }
            }
            try Self.copy(encoded + Self.rebuild(readBack, on: connection), on: connection)
        } else {
            let marks = try connection.query("WITH \(taken) \(delete) RETURNING trace_dirty.session_id", parameters)
            sessions = Array(Set(marks.compactMap { $0[0].uuid }))
            try Self.copy(Self.rebuild(sessions, on: connection), on: connection)
        }
        let last = sessions.max { $0.isBefore($1) } ?? after
        return (Rebuilt(built: sessions.count, encoded: encoded.count), last)
    }

    /// Catch-ups of the same buckets take turns (else two could insert one session's trace);
    /// writers take no such lock. Buckets in ascending order: no deadlock between two. All of
    /// them when `nil`.
    static func lock(_ buckets: [Int]?, on connection: PostgresConnection) throws {
        let locked = (buckets ?? Array(0..<SessionBucket.count)).sorted().map(String.init).joined(separator: ",")
        try connection.query(
            "SELECT pg_advisory_xact_lock(hashtext('onboardmetrics_traces'), bucket) FROM unnest('{\(locked)}'::integer[]) AS bucket"
        )
    }

    /// Replaces the traces of sessions `ids` by ones encoded from their events rows, inside the
    /// caller's transaction; a session without events any more is recorded as removed.
    /// - Returns: the traces to copy in (``copy(_:on:)``).
    static func rebuild(_ ids: [UUID], on connection: PostgresConnection) throws -> [Built] {
        guard !ids.isEmpty else { return [] }
        let array = opaqueUUIDArray(ids)
        try connection.query("DELETE FROM session_traces WHERE session_id = ANY (\(array))")
        var built: [Built] = []
        try forEachSession(on: connection, where: "session_id = ANY (\(array))") { sessionID, encoder in
            built.append(Built(sessionID: sessionID, encoder: encoder))
        }
        // Sessions whose events are all gone: their traces were removed and nothing replaces them.
        let rebuilt = Set(built.map(\.sessionID))
        let removed = ids.filter { !rebuilt.contains($0) }
        if !removed.isEmpty {
            try connection.query("INSERT INTO trace_removals (session_id) SELECT unnest(\(uuidArray(removed)))")
        }
        return built
    }

    /// Writes traces (of sessions that have none now) with one binary COPY.
    static func copy(_ built: [Built], on connection: PostgresConnection) throws {
        guard !built.isEmpty else { return }
        try connection.copyIn(
            "COPY session_traces (session_id, first_event_id, last_event_id, event_count, irregular, trace) FROM STDIN (FORMAT binary)"
        ) { writer in
            for session in built {
                writer.beginRow(fieldCount: 6)
                writer.write(uuid: session.sessionID)
                writer.write(uuid: session.first)
                writer.write(uuid: session.last)
                writer.write(int32: session.count)
                writer.write(bool: session.irregular)
                try writer.write(.bytea(session.trace))
                try writer.endRow()
            }
        }
    }

    /// `ids` as a `uuid[]` literal (uuidString is hex and dashes only: safe inside it).
    static func uuidArray(_ ids: [UUID]) -> String {
        "'{" + ids.map(\.uuidString).joined(separator: ",") + "}'::uuid[]"
    }

    /// `ids` as a `uuid[]` the planner does not look into, for `session_id = ANY (...)`. With
    /// the literal it estimated each of the 1,500 sessions of a small catch-up against every
    /// partition's statistics: 11-16 ms of planning against 3 ms, for the same bitmap scans.
    static func opaqueUUIDArray(_ ids: [UUID]) -> String {
        "(SELECT \(uuidArray(ids)))::uuid[]"
    }

    /// A session's trace and what its row says about it.
    struct Built {
        var sessionID: UUID
        var first: UUID
        var last: UUID
        var count: Int32
        var irregular: Bool
        var trace: [UInt8]

        init(sessionID: UUID, encoder: SessionTrace.Encoder) {
            self.sessionID = sessionID
            first = encoder.first ?? sessionID
            last = encoder.last ?? sessionID
            count = Int32(clamping: encoder.count)
            irregular = encoder.irregular
            trace = encoder.trace
        }
    }

    /// Streams the events rows matching `condition` (on `events`), session by session, each
    /// session's rows (in event-id order) encoded as its trace.
    static func forEachSession(
        on connection: PostgresConnection, where condition: String?,
        _ body: (UUID, SessionTrace.Encoder) throws -> Void
    ) throws {
        let filter = condition.map { " WHERE " + $0 } ?? ""
        var current: UUID?
        var encoder = SessionTrace.Encoder()
        try connection.copyOut(
            "COPY (SELECT \(SessionReader.columns) FROM events\(filter) ORDER BY session_id, event_id) TO STDOUT (FORMAT binary)"
        ) { row in
            guard let sessionID = try row.uuid(1) else {
                throw PostgresError(.invalidValue, "an events row has no session_id")
            }
            if sessionID != current {
                if let current, encoder.count > 0 { try body(current, encoder) }
                current = sessionID
                encoder.reset()
            }
            try append(row, to: &encoder)
        }
        if let current, encoder.count > 0 { try body(current, encoder) }
    }

    /// Appends an events row read with ``SessionReader/columns`` to a trace.
    static func append(_ row: BinaryCopyRow, to encoder: inout SessionTrace.Encoder) throws {
        guard let eventID = try row.uuid(0), let seq = try row.int32(3), let kind = row.rawBytes(4),
            let occurred = try row.timestampMicroseconds(9)
        else { throw PostgresError(.invalidValue, "an events row lacks a required column") }
        // jsonb in binary: a version byte, then the JSON text.
        let properties = row.rawBytes(12).flatMap { $0.count > 1 ? UnsafeRawBufferPointer(rebasing: $0[1...]) : nil }
        encoder.append(
            eventID: eventID, userID: row.rawBytes(2), seq: seq, kind: kind, flowID: row.rawBytes(5),
            flowVersion: try row.int32(6), stepID: row.rawBytes(7), name: row.rawBytes(8), occurred: occurred,
            sent: try row.timestampMicroseconds(10), received: try row.timestampMicroseconds(11), properties: properties
        )
    }
}
