import Foundation
import OnboardMetricsPostgres

/// Checks the session traces against the events they derive from, for operators
/// (`funnel verify`): every session's trace must be byte for byte the one its events rows encode
/// to now (the encoding is deterministic), and no trace may outlive its events. Sessions marked
/// for a rebuild (`trace_dirty`) are stale by design and only counted.
public struct TraceVerifier: Sendable {
    /// What a check found.
    public struct Result: Sendable, Hashable, Codable {
        /// Sessions with events that were checked (not awaiting a rebuild).
        public var sessions = 0
        /// Traces stored.
        public var traces = 0
        /// Sessions awaiting a rebuild (brought up to date by the next report).
        public var pending = 0
        /// Sessions with events but no trace, and not awaiting a rebuild.
        public var missing: [UUID] = []
        /// Sessions whose trace differs from their events.
        public var differing: [UUID] = []
        /// Traces of sessions that have no events left.
        public var orphaned: [UUID] = []

        /// Whether the traces match the events (pending sessions aside).
        public var isConsistent: Bool { missing.isEmpty && differing.isEmpty && orphaned.isEmpty }
    }

    /// A verifier.
    public init() {}

    /// Whether the database has session traces (migrations 0006 and 0007).
    public func isAvailable(on connection: PostgresConnection) throws -> Bool {
        try TraceBuilder.isMigrated(on: connection)
    }

    /// Compares every trace with its session's events, in one snapshot.
    /// - Throws: `PostgresError`.
    public func verify(on connection: PostgresConnection) throws -> Result {
        try connection.transaction { connection in
            // One snapshot for the three reads, so a write meanwhile does not look like a mismatch.
            try connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            var result = Result()
            var pending = Set<UUID>()
            try connection.copyOut("COPY trace_dirty (session_id) TO STDOUT (FORMAT binary)") { row in
                if let id = try row.uuid(0) { pending.insert(id) }
            }
            result.pending = pending.count
            // A 64-bit hash of each trace, not the trace: memory stays a few dozen bytes a session.
            var stored: [UUID: UInt64] = [:]
            try connection.copyOut("COPY session_traces (session_id, trace) TO STDOUT (FORMAT binary)") { row in
                guard let id = try row.uuid(0), let trace = row.rawBytes(1) else { return }
                stored[id] = trace.contentHash
            }
            result.traces = stored.count
            try TraceBuilder.forEachSession(on: connection, where: nil) { sessionID, encoder in
                let trace = stored.removeValue(forKey: sessionID)
                guard !pending.contains(sessionID) else { return }
                result.sessions += 1
                guard let trace else { return result.missing.append(sessionID) }
                if trace != encoder.trace.withUnsafeBytes({ $0.contentHash }) { result.differing.append(sessionID) }
            }
            result.orphaned = stored.keys.filter { !pending.contains($0) }.sorted { $0.isBefore($1) }
            return result
        }
    }

    /// Drops every trace and builds them all again from the events.
    /// - Returns: the sessions built.
    /// - Throws: `PostgresError`.
    @discardableResult
    public func rebuild(on connection: PostgresConnection) throws -> Int {
        try TraceBuilder().rebuildAll(on: connection, parts: ShardedReader.automaticConnections)
    }
}
