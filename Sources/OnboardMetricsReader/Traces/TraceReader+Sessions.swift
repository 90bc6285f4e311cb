import Foundation
import OnboardMetricsPostgres

extension TraceReader {
    /// Reads the traces of these sessions only, with the reader's bounds, people and cohort: the
    /// sessions a ``SessionFile`` cannot give because a bound falls among their events.
    /// - Returns: the events read.
    /// - Throws: `PostgresError`.
    func read(
        sessions sessionIDs: [UUID], on connection: PostgresConnection, _ body: (RecordedSession) throws -> Void
    ) throws -> Int {
        guard !sessionIDs.isEmpty else { return 0 }
        let (since, until) = floors()
        return try decode(
            on: connection,
            """
            COPY (SELECT session_id, trace FROM session_traces
                  WHERE session_id = ANY (\(TraceBuilder.opaqueUUIDArray(sessionIDs)))) TO STDOUT (FORMAT binary)
            """, since: since, until: until, progress: { _ in }, body
        ).events
    }

    /// Reads the traces of these sessions, written from `watermark` on, with the reader's bounds,
    /// people and cohort: those a ``SessionFile`` left unread (``SessionFile/deferred``). They are
    /// taken from the traces written since, not asked for by id (a thousand ids took the server
    /// 5 ms, the range under one); one written after the file's refresh is left out, since the
    /// file's record for it is read.
    /// - Returns: the events read.
    /// - Throws: `PostgresError`.
    func read(
        sessions sessionIDs: Set<UUID>, writtenFrom watermark: UInt64, on connection: PostgresConnection,
        _ body: (RecordedSession) throws -> Void
    ) throws -> Int {
        guard !sessionIDs.isEmpty else { return 0 }
        let (since, until) = floors()
        return try decode(
            on: connection,
            """
            COPY (SELECT session_id, trace FROM session_traces WHERE written_by >= '\(watermark)'::xid8)
            TO STDOUT (FORMAT binary)
            """, since: since, until: until, only: sessionIDs, progress: { _ in }, body
        ).events
    }
}
