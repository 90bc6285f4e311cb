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
}
