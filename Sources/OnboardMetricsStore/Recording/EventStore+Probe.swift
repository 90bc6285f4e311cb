import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

// Finding which of a batch's events are stored already: one primary-key probe per month of ids.
extension EventStore {
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
    func storedKeys(of rows: [Int], of events: [Event], on connection: PostgresConnection) throws -> Set<Key> {
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
}
