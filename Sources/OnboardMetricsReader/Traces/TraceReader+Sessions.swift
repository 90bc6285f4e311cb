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
        return try readTraces(
            where: "session_id = ANY (\(TraceBuilder.opaqueUUIDArray(sessionIDs)))", on: connection, body)
    }

    /// Reads the traces written from `watermark` on, with the reader's bounds, people and cohort:
    /// those a ``SessionFile``'s refresh left unread (``SessionFile/deferred``), in the snapshot
    /// the refresh left open on `connection`, where they are exactly those (a range of
    /// `written_by`; a thousand ids took the server 5 ms, the range under one).
    /// - Returns: the events read.
    /// - Throws: `PostgresError`.
    func read(
        writtenFrom watermark: UInt64, on connection: PostgresConnection, _ body: (RecordedSession) throws -> Void
    ) throws -> Int {
        try readTraces(where: "written_by >= '\(watermark)'::xid8", on: connection, body)
    }

    private func readTraces(
        where condition: String, on connection: PostgresConnection, _ body: (RecordedSession) throws -> Void
    ) throws -> Int {
        let (since, until) = floors()
        return try decode(
            on: connection,
            "COPY (SELECT session_id, trace FROM session_traces WHERE \(condition)) TO STDOUT (FORMAT binary)",
            since: since, until: until, progress: { _ in }, body
        ).events
    }
}
