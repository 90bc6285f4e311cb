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
        try writeRows(events, on: connection, receivedAt: PostgresValue.postgresMicroseconds(receivedAt), hints: &hints)
            .result
    }

    /// ``write(_:on:receivedAt:hints:)``, also saying which events it stored: indices into
    /// `events`, all stored by one statement; nil when the write does not know (it moved the batch
    /// through the staging table).
    package func writeRows(
        _ events: [Event], on connection: PostgresConnection, receivedAt received: Int64, hints: inout WriteHints
    ) throws -> (result: WriteResult, rows: [Int]?) {
        guard !events.isEmpty else { return (WriteResult(inserted: 0, duplicates: 0), []) }
        var events = events
        try resolveMessageIDs(&events, on: connection)
        let distinct = Self.distinctRows(events)
        let starts = Self.sessionStarts(events)
        var rows: [Int]?
        if !hints.resending {
            rows = try copyStraight(distinct, starts, of: events, on: connection, receivedAt: received)
        }
        var stored = 0
        var count = rows?.count ?? 0
        if rows == nil {
            if !hints.probeRefused {
                rows = try copyUnstored(
                    distinct, starts, of: events, on: connection, receivedAt: received, hints: &hints)
            }
            count =
                try rows?.count
                ?? writeDeduplicating(distinct, starts, of: events, on: connection, receivedAt: received)
            stored = distinct.count - count
        }
        hints.lastStoredDuplicates = stored
        // A resent batch is rarely alone; a stored duplicate at a batch's edge (a repeat that
        // straddles two batches) is.
        hints.resending = stored * 2 >= distinct.count
        return (WriteResult(inserted: count, duplicates: events.count - count), rows)
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
    /// - Returns: the events stored (`distinct`), or `nil` when one was already stored (nothing
    ///   is written).
    private func copyStraight(
        _ distinct: [Int], _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64
    ) throws -> [Int]? {
        do {
            try copyEvents(
                distinct, of: events, into: "events", on: connection, receivedAt: receivedAt,
                begin: true, commit: starts.isEmpty)
            if !starts.isEmpty {
                try copySessions(
                    starts, of: events, into: "sessions", on: connection, receivedAt: receivedAt, commit: true)
            }
            return distinct
        } catch let error as PostgresError where error.mayBeUniqueViolation || error.sqlState == "40P01" {
            return nil
        }
    }

    /// Probes the primary key for the batch's ids and copies only the events not stored yet.
    /// Another writer may store some of the same ids between the probe and the COPY (several
    /// collectors, an ingest beside a collector); the COPY then fails whole, and the write probes
    /// again: the primary key keeps every id stored once and the count exact. (A deadlock between
    /// such writers cannot happen while every writer copies in id order; it is retried alike.)
    /// - Returns: the events stored (indices into `events`), or `nil` when the probe is not allowed
    ///   or kept losing races.
    private func copyUnstored(
        _ distinct: [Int], _ starts: [Int], of events: [Event], on connection: PostgresConnection, receivedAt: Int64,
        hints: inout WriteHints
    ) throws -> [Int]? {
        for _ in 0..<Self.probeAttempts {
            do {
                return try connection.transaction { connection in
                    let stored = try storedKeys(of: distinct, of: events, on: connection)
                    let unstored = stored.isEmpty ? distinct : distinct.filter { !stored.contains(Key(events[$0])) }
                    if !unstored.isEmpty {
                        try copyEvents(unstored, of: events, into: "events", on: connection, receivedAt: receivedAt)
                    }
                    // Sessions of a resent batch are mostly stored too: no straight COPY for them.
                    try writeSessions(
                        starts, of: events, on: connection, receivedAt: receivedAt, straight: stored.isEmpty)
                    return unstored
                }
            } catch let error as PostgresError where error.mayBeUniqueViolation || error.sqlState == "40P01" {
                continue
            } catch let error as PostgresError where error.sqlState == "42501" {
                hints.probeRefused = true
                return nil
            }
        }
        return nil
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
            try connection.query(Self.sharedPartitionsLock)
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

    /// Taken (shared) by every transaction that writes rows into `events`, before it writes them;
    /// `onboardmetrics_ensure_partitions` takes the same key exclusively. So a month's partition
    /// is never created (its rows moved out of the default partition, the partition attached)
    /// while another connection's write may still route rows of that month into the default
    /// partition: the write commits first, or starts after, with the new partition in view.
    /// Without it a multi-month history ingested on two connections failed its first run
    /// ("updated partition constraint for default partition would be violated", issue 31).
    static let sharedPartitionsLock =
        "SELECT pg_advisory_xact_lock_shared(hashtext('onboardmetrics_ensure_partitions'))"

    /// `begin`, `commit`: the COPY begins or commits a transaction of its own (see
    /// ``PostgresConnection/copyIn(_:begin:commit:_:)``); neither inside the caller's.
    @discardableResult
    private func copyEvents(
        _ rows: [Int], of events: [Event], into table: String, on connection: PostgresConnection, receivedAt: Int64,
        begin: Bool = false, commit: Bool = false
    ) throws -> Int {
        // Into `events` the transaction holds the partitions lock first (sent with the COPY: no round trip more).
        let lock = table == "events" ? Self.sharedPartitionsLock + "; " : ""
        return try connection.copyIn(
            lock + "COPY \(table) (\(Self.columns)) FROM STDIN (FORMAT binary)", begin: begin, commit: commit
        ) {
            try Self.encode(rows, of: events, receivedAt: receivedAt, into: &$0)
        }
    }
}
