import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

// A batch as COPY rows: which events it stores (first occurrences, in id order) and their encoding.
extension EventStore {
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

    /// The `received_at` stored for an event that carries `own`: its own, else the batch's
    /// receipt time.
    package static func receivedAt(_ own: Date?, batch: Int64) -> Int64 {
        own.map(PostgresValue.postgresMicroseconds) ?? batch
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
            writer.write(timestampMicroseconds: Self.receivedAt(event.receivedAt, batch: receivedAt))
            try writer.write(jsonbAppending: { JSONWriter.appendObject(event.properties, to: &$0) })
            try writer.endRow()
        }
    }
}
