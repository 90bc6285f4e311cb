import Foundation
import OnboardMetricsPostgres

/// What keeps decoded traces between reports and is brought up to date from what was written
/// since (``TraceChanges/read(into:closeAfter:closeFinishedAfter:on:maximumEvents:)``): a kept
/// grouping of ``SessionCache`` in memory, a ``SessionFile`` on disk.
protocol TraceKeeper {
    /// The watermark of the last read's snapshot: its xmin among this database's transactions
    /// (nil: nothing read yet).
    var watermark: UInt64? { get }
    /// The server and database that read was from.
    var database: String? { get }
    /// The events kept.
    var events: Int { get }
    /// Forgets everything (another server or database, a server gone back in time).
    mutating func restart()
    /// Forgets one trace's sessions.
    mutating func remove(_ sessionID: UUID)
    /// Keeps one trace's sessions in place of what was kept for it.
    /// - Returns: false when nothing more can be kept (the read stops and keeps nothing).
    mutating func put(
        _ sessionID: UUID, sessions: [RecordedSession], events: Int, irregular: Bool, firstEventID: UUID,
        lastEventID: UUID
    ) throws -> Bool
    /// Records the snapshot read.
    mutating func mark(watermark: UInt64, database: String)
    /// Told, before a first read, how many events the traces hold (to make room once).
    mutating func expect(events: Int)
    /// The most traces written since the watermark it might leave unread (``defers(traces:events:)``);
    /// nil: never (nothing is asked).
    var deferrableTraces: Int? { get }
    /// Whether to leave unread the `traces` traces, of `events` events, written since the
    /// watermark: the caller then reads them from PostgreSQL itself (``deferRead(of:)``).
    func defers(traces: Int, events: Int) -> Bool
    /// Leaves these traces, written since the watermark, unread: what was kept for them is
    /// forgotten, and the caller reads them.
    mutating func deferRead(of sessionIDs: [UUID])
}

extension TraceKeeper {
    mutating func expect(events: Int) {}
    var deferrableTraces: Int? { nil }
    func defers(traces: Int, events: Int) -> Bool { false }
    mutating func deferRead(of sessionIDs: [UUID]) {}
}

/// Reads what was written to the traces since a keeper's watermark (the traces already caught up).
enum TraceChanges {
    /// The watermark of the transaction's snapshot, and the server's and database's identity.
    ///
    /// The watermark is the snapshot's `xmin` without the transactions of other databases: they
    /// cannot write this database's traces, and a long one elsewhere in the cluster (another
    /// app's, a backup's) would otherwise hold every refresh here back to it. A transaction is
    /// known to be another database's by `pg_stat_activity`, read after the snapshot: one that
    /// ended in between is not listed and still counts, which only lowers the watermark. Prepared
    /// transactions are not listed either and count too. Without others' transactions this is
    /// `pg_snapshot_xmin` itself.
    static let watermarkQuery = """
        WITH snapshot AS (SELECT pg_current_snapshot() AS s),
            here AS (SELECT oid FROM pg_database WHERE datname = current_database())
        SELECT least(
                pg_snapshot_xmax(snapshot.s),
                (SELECT x FROM pg_snapshot_xip(snapshot.s) AS x
                 WHERE NOT EXISTS (
                     SELECT 1 FROM pg_stat_activity a WHERE a.backend_xid = x::xid AND a.datid <> here.oid)
                 ORDER BY x LIMIT 1))::text,
            (SELECT system_identifier FROM pg_control_system())::text || '/' || here.oid::text
        FROM snapshot, here
        """

    /// Reads into `keeper` what was written since its last read, in one repeatable-read snapshot.
    ///
    /// Why the watermark is a transaction id: a catch-up writes traces in its own transaction, and
    /// catch-ups of different buckets run side by side, so rows are not committed in the order of
    /// any counter they could take. Every transaction of this database below the watermark (the
    /// snapshot's `xmin` among them, ``watermarkQuery``) had finished when the snapshot was taken,
    /// so everything it wrote was seen; next time the keeper asks for what was written from the
    /// watermark on (some of it again: replacing a session by itself changes nothing).
    ///
    /// A keeper may leave the traces written since unread (``TraceKeeper/defers(traces:events:)``):
    /// they are then not read, the watermark is not moved, and the transaction is left open on
    /// `connection` — its snapshot is the one to read them in (`written_by` from the watermark on
    /// gives exactly those traces there); the caller ends it.
    /// - Parameter afterPut: called after each trace kept (a cache shares equal sessions there).
    /// - Returns: the traces read (none when deferred); nil when the keeper would hold more than
    ///   `maximumEvents` or refused one (`keeper` is then partly read: drop it).
    static func read<Keeper: TraceKeeper>(
        into keeper: inout Keeper, closeAfter: Int64, closeFinishedAfter: Int64?, on connection: PostgresConnection,
        maximumEvents: Int, afterPut: (UUID, inout Keeper) -> Void = { _, _ in }
    ) throws -> [UUID]? {
        try connection.transactionMayStayOpen { connection -> (value: [UUID]?, leaveOpen: Bool) in
            // One snapshot for the watermark, the removals and the traces.
            try connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            guard
                let row = try connection.query(Self.watermarkQuery).first,
                let xmin = row[0].string.flatMap({ UInt64($0) }), let database = row[1].string
            else { throw PostgresError(.invalidValue, "the server gave no snapshot xmin or no identity") }
            // Another server or database under the same settings (a cluster initialised again, a
            // database dropped and restored), or a server gone back in time: its traces' writers
            // say nothing about what was kept, so everything is read again.
            if let watermark = keeper.watermark, keeper.database != database || xmin < watermark {
                keeper.restart()
            }
            var filter = ""
            if let watermark = keeper.watermark {
                filter = " WHERE written_by >= '\(watermark)'::xid8"
                // Removed and not back since: a session written again is in the traces read next.
                for row in try connection.query(
                    """
                    SELECT DISTINCT r.session_id FROM trace_removals r
                    WHERE r.written_by >= '\(watermark)'::xid8
                      AND NOT EXISTS (SELECT 1 FROM session_traces t WHERE t.session_id = r.session_id)
                    """)
                {
                    guard let sessionID = row[0].uuid else {
                        throw PostgresError(.invalidValue, "a trace_removals row lacks its session")
                    }
                    keeper.remove(sessionID)
                }
                // A few traces are cheaper read straight into the report than kept first (the
                // keeper decides on their count and events, counted up to the most it might leave).
                // An irregular one is always read: the keeper must know it.
                if let most = keeper.deferrableTraces,
                    let counts = try connection.query(
                        """
                        SELECT count(*)::int8, coalesce(sum(event_count), 0)::int8, coalesce(bool_or(irregular), false)
                        FROM (SELECT event_count, irregular FROM session_traces\(filter) LIMIT \(most + 1)) AS pending
                        """
                    ).first,
                    let traces = counts[0].int, let events = counts[1].int, let irregular = counts[2].bool,
                    traces > 0, traces <= most, !irregular, keeper.defers(traces: traces, events: events)
                {
                    let pending = try connection.query("SELECT session_id FROM session_traces\(filter)").map {
                        guard let sessionID = $0[0].uuid else {
                            throw PostgresError(.invalidValue, "a session_traces row lacks its session")
                        }
                        return sessionID
                    }
                    keeper.deferRead(of: pending)
                    return ([], true)
                }
            } else {
                // A first read over the limit is known before it: reading up to the limit and
                // dropping it all left a dashboard at 10M events with 644 MB held (217 MB keeping
                // nothing). The sum takes 0.09 s there, once a grouping.
                guard
                    let events = try connection.query("SELECT coalesce(sum(event_count), 0)::int8 FROM session_traces")
                        .first?[0].int
                else { throw PostgresError(.invalidValue, "the server gave no count of the traces' events") }
                guard events <= maximumEvents else { return (nil, false) }
                keeper.expect(events: events)
            }
            var sessions = TraceSessions(
                closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter, people: nil, since: nil, until: nil,
                sessionsKept: true)
            var refused = false
            var traces: [UUID] = []
            try connection.copyOut(
                """
                COPY (SELECT session_id, irregular, first_event_id, last_event_id, trace FROM session_traces\(filter))
                TO STDOUT (FORMAT binary)
                """
            ) { row in
                guard !refused else { return }
                guard let sessionID = try row.uuid(0), let irregular = try row.bool(1), let first = try row.uuid(2),
                    let last = try row.uuid(3), let trace = row.rawBytes(4)
                else { throw PostgresError(.invalidValue, "a session_traces row lacks a column") }
                var read: [RecordedSession] = []
                let events = try sessions.read(sessionID: sessionID, trace: trace) { read.append($0) }
                refused = try !keeper.put(
                    sessionID, sessions: read, events: events, irregular: irregular, firstEventID: first,
                    lastEventID: last)
                guard !refused else { return }
                afterPut(sessionID, &keeper)
                traces.append(sessionID)
                refused = keeper.events > maximumEvents
            }
            guard !refused else { return (nil, false) }
            keeper.mark(watermark: xmin, database: database)
            return (traces, false)
        }
    }
}
