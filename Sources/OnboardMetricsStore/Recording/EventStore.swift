import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Writes batches of validated events into the `events` table (and `sessions`, for
/// `session_started` events) with binary COPY.
///
/// A duplicate `event_id` is never stored twice and never fails the batch, and costs little:
/// - repeats within a batch are dropped before the COPY (the first occurrence is kept, as the
///   database would keep it), so they cost nothing on the server;
/// - events already stored are found with one primary-key probe of the batch's ids and left out
///   of the COPY; a writer whose batches are resends (``WriteHints``) probes first, others copy
///   straight into `events` and probe only when that hits a unique violation.
///
/// That straight write takes two round trips to the server for a batch (the COPY's start and
/// end), four when it starts sessions: `BEGIN` and `COMMIT` travel with the COPYs, which matters
/// once the database is across a network.
///
/// Without `SELECT` on `events` (the `onboardmetrics_writer` role may only insert) the probe
/// is replaced by copying into a temporary staging table and moving the rows with
/// `INSERT ... ON CONFLICT DO NOTHING`, written so that it needs only `INSERT`.
public struct EventStore: Sendable {
    /// What one write did.
    public struct WriteResult: Sendable, Hashable {
        /// Events newly stored.
        public var inserted: Int
        /// Events already stored (same `event_id`), or repeated within the batch: dropped.
        public var duplicates: Int
    }

    /// What a writer learns from one batch about the next: kept by whoever writes a stream of
    /// batches (the recorder's writer thread, an ingest) and passed to every write.
    package struct WriteHints: Sendable {
        /// The last batch was mostly events already stored (a resent file or batch): probe the
        /// primary key before copying rather than after a failed COPY.
        package var resending = false
        /// The database refused the probe (no `SELECT` on `events`): use the staging table.
        package var probeRefused = false
        /// Events of the last batch that were already stored.
        package var lastStoredDuplicates = 0

        package init() {}
    }

    /// The columns of `events`, in the order batches are copied.
    static let columns =
        "event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, properties"

    /// How many times a write probes again when a concurrent writer stored some of its ids
    /// between its probe and its COPY, before it moves the batch through the staging table.
    static let probeAttempts = 3

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
        var hints = WriteHints()
        return try write(events, on: connection, receivedAt: receivedAt, hints: &hints)
    }

    /// Stores `events` in one transaction like ``write(_:on:receivedAt:)``, choosing how by what
    /// earlier batches of the same writer showed, and updating `hints` for the next batch.
    @discardableResult
    package func write(
        _ events: [Event], on connection: PostgresConnection, receivedAt: Date, hints: inout WriteHints
    ) throws -> WriteResult {
        guard !events.isEmpty else { return WriteResult(inserted: 0, duplicates: 0) }
        let received = PostgresValue.postgresMicroseconds(receivedAt)
        let distinct = Self.distinctRows(events)
        let starts = Self.sessionStarts(events)
        var inserted: Int?
        if !hints.resending {
            inserted = try copyStraight(distinct, starts, of: events, on: connection, receivedAt: received)
        }
        var stored = 0
        if inserted == nil {
            if !hints.probeRefused {
                inserted = try copyUnstored(
                    distinct, starts, of: events, on: connection, receivedAt: received, hints: &hints)
            }
            if inserted == nil {
                inserted = try writeDeduplicating(distinct, starts, of: events, on: connection, receivedAt: received)
            }
            stored = distinct.count - (inserted ?? 0)
        }
        let count = inserted ?? 0
        hints.lastStoredDuplicates = stored
        // A resent batch is rarely alone; a stored duplicate at a batch's edge (a repeat that
        // straddles two batches) is.
        hints.resending = stored * 2 >= distinct.count
        return WriteResult(inserted: count, duplicates: events.count - count)
    }
    /// Makes sure monthly partitions exist for the months of these instants.
    /// - Throws: `PostgresError`.
    public func ensurePartitions(from: Date, to: Date, on connection: PostgresConnection) throws {
        try connection.query("SELECT onboardmetrics_ensure_partitions($1, $2)", [.timestamp(from), .timestamp(to)])
    }

    /// The common case, no event of the batch stored yet: one COPY straight into `events`, and one
    /// into `sessions` when the batch starts sessions, with `BEGIN` and `COMMIT` sent along with
    /// them (two or four round trips in all, against four or seven with statements of their own).
    /// A session already stored fails the write like an event already stored does, and the
    /// caller then probes (``copyUnstored``), which keeps the events and leaves that session as
    /// it is.
    /// `distinct` holds the rows to store and `starts` the session starts, as indices into `events`
    /// (``distinctRows(_:)``, ``sessionStarts(_:)``).
    /// - Returns: the events stored, or `nil` when one was already stored (nothing is written).
    private func copyStraight(
        _ distinct: [Int], _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64
    ) throws -> Int? {
        do {
            let inserted = try copyEvents(
                distinct, of: events, into: "events", on: connection, receivedAt: receivedAt,
                begin: true, commit: starts.isEmpty)
            if !starts.isEmpty {
                try copySessions(
                    starts, of: events, into: "sessions", on: connection, receivedAt: receivedAt, commit: true)
            }
            return inserted
        } catch let error as PostgresError where error.sqlState == "23505" || error.sqlState == "40P01" {
            return nil
        }
    }

    /// Probes the primary key for the batch's ids and copies only the events not stored yet.
    /// Another writer may store some of the same ids between the probe and the COPY (several
    /// collectors, an ingest beside a collector); the COPY then fails whole, and the write probes
    /// again: the primary key keeps every id stored once and the count exact. (A deadlock between
    /// such writers cannot happen while every writer copies in id order; it is retried alike.)
    /// - Returns: the events stored, or `nil` when the probe is not allowed or kept losing races.
    private func copyUnstored(
        _ distinct: [Int], _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64,
        hints: inout WriteHints
    ) throws -> Int? {
        for _ in 0..<Self.probeAttempts {
            do {
                return try connection.transaction { connection in
                    let stored = try storedKeys(of: distinct, of: events, on: connection)
                    let unstored = stored.isEmpty ? distinct : distinct.filter { !stored.contains(Key(events[$0])) }
                    let inserted =
                        unstored.isEmpty
                        ? 0
                        : try copyEvents(unstored, of: events, into: "events", on: connection, receivedAt: receivedAt)
                    // Sessions of a resent batch are mostly stored too: no straight COPY for them.
                    try writeSessions(
                        starts, of: events, on: connection, receivedAt: receivedAt, straight: stored.isEmpty)
                    return inserted
                }
            } catch let error as PostgresError where error.sqlState == "23505" || error.sqlState == "40P01" {
                continue
            } catch let error as PostgresError where error.sqlState == "42501" {
                hints.probeRefused = true
                return nil
            }
        }
        return nil
    }

    /// The primary key of `events`: `(event_id, session_id)` since migration 0003, so that a shard
    /// (and Citus) can enforce it; a resent event carries both.
    struct Key: Hashable {
        var eventID: UUID
        var sessionID: UUID

        init(_ event: Event) {
            eventID = event.eventID
            sessionID = event.sessionID
        }

        init(eventID: UUID, sessionID: UUID) {
            self.eventID = eventID
            self.sessionID = sessionID
        }
    }

    /// The keys of `events` that `events` already holds: one index probe per id, one statement
    /// per month of ids, so that each statement reaches one partition.
    private func storedKeys(of rows: [Int], of events: [Event], on connection: PostgresConnection) throws -> Set<Key> {
        // Partitions are monthly ranges of the UUIDv7 time; other ids go in one unbounded probe.
        var months: [Int64: [UUID]] = [:]
        var unbounded: [UUID] = []
        for row in rows {
            let id = events[row].eventID
            if let milliseconds = id.version7Milliseconds {
                months[PartitionPlanner.monthIndex(milliseconds: milliseconds), default: []].append(id)
            } else {
                unbounded.append(id)
            }
        }
        var stored = Set<Key>()
        for (month, ids) in months.sorted(by: { $0.key < $1.key }) {
            let bounds = [month, month + 1].map {
                PostgresValue.uuid(Self.version7Floor(PartitionPlanner.start(ofMonth: $0)))
            }
            try probe(ids, bounded: true, bounds, on: connection, into: &stored)
        }
        if !unbounded.isEmpty { try probe(unbounded, bounded: false, [], on: connection, into: &stored) }
        return stored
    }

    private func probe(
        _ ids: [UUID], bounded: Bool, _ bounds: [PostgresValue], on connection: PostgresConnection,
        into stored: inout Set<Key>
    ) throws {
        // A uuid[] literal in a text parameter: parameters stay out of the SQL text, and the
        // server parses 36 characters an id.
        var literal = "{"
        literal.reserveCapacity(ids.count * 37 + 2)
        for (index, id) in ids.enumerated() {
            if index > 0 { literal += "," }
            literal += id.uuidString
        }
        literal += "}"
        // The array sits in a sub-select so the planner does not fold it into thousands of
        // constants to prune partitions with (that took longer than the probe, measured); the
        // month's bounds prune to one partition instead. The index scan takes the ids sorted.
        let sql =
            "SELECT event_id, session_id FROM events WHERE event_id = ANY ((SELECT $1::text::uuid[])::uuid[])"
            + (bounded ? " AND event_id >= $2 AND event_id < $3" : "")
        for row in try connection.query(sql, [.text(literal)] + bounds) {
            if let id = row[0].uuid, let session = row[1].uuid { stored.insert(Key(eventID: id, sessionID: session)) }
        }
    }

    /// The smallest UUIDv7 of an instant (its milliseconds, the rest zero): where a month's
    /// partition starts (as `onboardmetrics_uuidv7_floor` in the schema).
    static func version7Floor(_ date: Date) -> UUID {
        let milliseconds = UInt64(max(0, Timestamp.milliseconds(date)))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// Without the probe (no `SELECT` privilege, or a write that kept losing races to concurrent
    /// writers): copy into a temporary staging table, then `INSERT ... ON CONFLICT DO NOTHING`.
    private func writeDeduplicating(
        _ distinct: [Int], _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64
    ) throws -> Int {
        try connection.transaction { connection in
            // Spelled out rather than `LIKE events`, and `ON CONFLICT` without a target: both of
            // those need `SELECT` on `events`, which the writer role does not have. The primary
            // key is the only unique constraint of `events`.
            try connection.query(
                """
                CREATE TEMPORARY TABLE IF NOT EXISTS events_staging (event_id uuid, session_id uuid, user_id text,
                    seq integer, kind text, flow_id text, flow_version integer, step_id text, name text,
                    occurred_at timestamptz, sent_at timestamptz, received_at timestamptz, properties jsonb)
                ON COMMIT DELETE ROWS
                """)
            try copyEvents(distinct, of: events, into: "events_staging", on: connection, receivedAt: receivedAt)
            let inserted = try connection.query(
                """
                INSERT INTO events (\(Self.columns))
                SELECT \(Self.columns) FROM events_staging
                ON CONFLICT DO NOTHING
                """
            ).affectedRows
            try writeSessions(starts, of: events, on: connection, receivedAt: receivedAt, straight: false)
            return inserted
        }
    }

    /// `begin`, `commit`: the COPY begins or commits a transaction of its own (see
    /// ``PostgresConnection/copyIn(_:begin:commit:_:)``); neither inside the caller's.
    @discardableResult
    private func copyEvents(
        _ rows: [Int], of events: [Event], into table: String, on connection: PostgresConnection, receivedAt: Int64,
        begin: Bool = false, commit: Bool = false
    ) throws -> Int {
        try connection.copyIn(
            "COPY \(table) (\(Self.columns)) FROM STDIN (FORMAT binary)", begin: begin, commit: commit
        ) {
            try Self.encode(rows, of: events, receivedAt: receivedAt, into: &$0)
        }
    }

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
    private func writeSessions(
        _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64, straight: Bool
    ) throws {
        guard !starts.isEmpty else { return }
        if straight {
            try connection.query("SAVEPOINT onboardmetrics_sessions")
            do {
                try copySessions(starts, of: events, into: "sessions", on: connection, receivedAt: receivedAt)
                return
            } catch let error as PostgresError where error.sqlState == "23505" {
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
    private func copySessions(
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

    /// A uuid as two integers that compare as PostgreSQL compares uuids (bytewise).
    static func orderKey(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }

    /// The rows a batch stores, as indices into it: the first occurrence of each key (what the
    /// database would keep of a batch with repeats; the generator's resends are a line or two
    /// apart), sorted by `event_id`. Writers that insert in one global order cannot deadlock on
    /// each other's uncommitted ids (a writer waits only for ids below the one it inserts), and
    /// rows land in the heap in the order reports read them.
    ///
    /// Indices, not a new array of events: a copy of an event retains each of its strings and its
    /// properties (2 % of an ingest's CPU went to such copies, profiled). And no hash set: sorting
    /// by id, ties in batch order, puts a repeat right after its first occurrence, and hashing
    /// every key took 2-3 % of the recorder's CPU (profiled).
    static func distinctRows(_ events: [Event]) -> [Int] {
        let keys = events.map { orderKey($0.eventID) }
        var rows = Array(events.indices)
        // Strictly ascending ids: nothing to sort, and no id twice.
        if keys.indices.dropFirst().allSatisfy({ keys[$0 - 1] < keys[$0] }) { return rows }
        rows.sort { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
        var distinct: [Int] = []
        distinct.reserveCapacity(rows.count)
        // Where, in `distinct`, the rows with the current row's event id begin: one row, or a few
        // when sessions share an id. A client that sends one id under many sessions gets a set,
        // so that no batch costs a scan per row.
        var sameID = 0
        var sessionsOfID = Set<UUID>()
        for row in rows {
            if let last = distinct.last, keys[last] != keys[row] {
                sameID = distinct.count
                sessionsOfID.removeAll(keepingCapacity: true)
            }
            let session = events[row].sessionID
            // By index, not through a slice of `distinct`: a slice alive at the append below
            // would make every append copy the whole array.
            if distinct.count - sameID < 16 {
                if (sameID..<distinct.count).contains(where: { events[distinct[$0]].sessionID == session }) {
                    continue
                }
            } else {
                if sessionsOfID.isEmpty {
                    for index in sameID..<distinct.count { sessionsOfID.insert(events[distinct[index]].sessionID) }
                }
                if !sessionsOfID.insert(session).inserted { continue }
            }
            distinct.append(row)
        }
        return distinct
    }

    /// Encodes the events at `rows` (indices into `events`) as rows of the `events` columns, in
    /// ``columns`` order.
    static func encode(_ rows: [Int], of events: [Event], receivedAt: Int64, into writer: inout BinaryCopyWriter)
        throws
    {
        for row in rows {
            let event = events[row]
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
            try writer.write(jsonbAppending: { JSONWriter.appendObject(event.properties, to: &$0) })
            try writer.endRow()
        }
    }
}
