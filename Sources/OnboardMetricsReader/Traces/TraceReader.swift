import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// The trace path of ``SessionReader/read(on:progress:_:)``: brings the reader's buckets' traces
/// up to date (``TraceBuilder/catchUp(on:buckets:)``), then streams them by binary COPY and groups
/// each session's events, in event-id order, as a ``SessionGrouper`` would
/// (``TraceSessionGrouper``) — one session at a time, finished after each.
///
/// Why that equals the events stream: with every event id a UUIDv7, the stream's time never
/// goes back, so the grouper cuts a session exactly where a gap between two of its own events
/// exceeds the closing time (``SessionGrouper/add(sessionID:userID:streamTime:event:clockOffset:emit:)``
/// cuts on that; a close by the stream's watermark is followed by no event earlier than it).
/// That depends on the session's events only. Sessions come out in another order, which the
/// mergeable aggregators do not see (shards and `--read-connections` already reorder them).
struct TraceReader {
    var reader: SessionReader

    /// Reads through the traces; `nil` when the events must be read instead (automatic source).
    func read(
        on connection: PostgresConnection, progress: (Int) -> Void, _ body: (RecordedSession) throws -> Void
    ) throws -> SessionReader.Statistics? {
        guard try TraceBuilder.isMigrated(on: connection) else {
            return try unavailable("the database has no session traces (migrations 0006 and 0007)")
        }
        if try TraceBuilder.hasDirty(on: connection, buckets: reader.buckets) {
            do {
                try TraceBuilder().catchUp(on: connection, buckets: reader.buckets)
            } catch let error as PostgresError where error.sqlState == "42501" || error.sqlState == "25006" {
                // A role that may only read, or a read-only server: the events are still there.
                return try unavailable("sessions await a rebuild this connection may not write (\(error.message))")
            }
        }
        let (sinceFloor, untilFloor) = floors()
        var conditions: [String] = TraceBuilder.bucketCondition(reader.buckets).map { [$0] } ?? []
        // The floors are uuids made from numbers: hex and dashes only.
        if let sinceFloor { conditions.append("last_event_id >= '\(sinceFloor.uuidString)'") }
        if let untilFloor { conditions.append("first_event_id < '\(untilFloor.uuidString)'") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let irregular = try connection.query(
            "SELECT EXISTS (SELECT 1 FROM session_traces\(filter.isEmpty ? " WHERE" : filter + " AND") irregular)")
        if irregular.first?[0].bool ?? true {
            return try unavailable("an event id is not a UUIDv7, so sessions are cut in the events' stream order")
        }
        return try decode(
            on: connection, "COPY (SELECT session_id, trace FROM session_traces\(filter)) TO STDOUT (FORMAT binary)",
            since: sinceFloor, until: untilFloor, progress: progress, body)
    }

    private func unavailable(_ reason: String) throws -> SessionReader.Statistics? {
        if reader.source == .traces { throw TraceError(.unavailable, reason) }
        return nil
    }

    /// The first event ids of `since` and `until`: the events path's bounds
    /// (``SessionReader/boundFloor(_:)``), so both paths keep exactly the same events.
    func floors() -> (UUID?, UUID?) {
        (reader.since.map(SessionReader.boundFloor), reader.until.map(SessionReader.boundFloor))
    }

    func decode(
        on connection: PostgresConnection, _ statement: String, since: UUID?, until: UUID?, progress: (Int) -> Void,
        _ body: (RecordedSession) throws -> Void
    ) throws -> SessionReader.Statistics {
        var sessions = TraceSessions(
            closeAfter: DurationText.microseconds(reader.closeAfter),
            closeFinishedAfter: reader.closeFinishedAfter.map { DurationText.microseconds($0) }, people: reader.people,
            since: since, until: until)
        var statistics = SessionReader.Statistics()
        let cohort = reader.cohort
        func emit(_ session: RecordedSession) throws {
            guard cohort?.admits(session) ?? true else { return }
            statistics.sessions += 1
            try body(session)
        }
        var reported = 0
        try connection.copyOut(statement) { row in
            guard let sessionID = try row.uuid(0), let trace = row.rawBytes(1) else {
                throw PostgresError(.invalidValue, "a session_traces row lacks its session or trace")
            }
            statistics.events += try sessions.read(sessionID: sessionID, trace: trace, emit: emit)
            // One session at a time is open.
            statistics.peakOpenSessions = 1
            if statistics.events - reported >= 100_000 {
                reported = statistics.events - statistics.events % 100_000
                progress(statistics.events)
            }
        }
        return statistics
    }
}
