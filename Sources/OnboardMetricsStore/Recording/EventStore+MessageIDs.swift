import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsSDK

extension EventStore {
    /// How long a message id is remembered (`message_ids`, migration 0010): a resend later than
    /// this is stored again. Segment's own deduplication keeps message ids for 24 hours; a device
    /// that was offline for days resends later, so a week.
    static let messageIDRetention: TimeInterval = 7 * 86_400

    /// Gives each event that came without a time of its own (its id a
    /// ``StableID/messageEventID(milliseconds:content:)``) the id its message was first stored
    /// under, so the primary key drops a resend as it drops any repeated id. Events with other ids
    /// are left as they are, and a batch without such events costs nothing.
    ///
    /// The lookup commits on its own, before the events' transaction: a write that fails after it
    /// leaves a row that only says which id the message will be stored under, and the retry (or
    /// the client's resend) stores it under that id, once.
    /// - Throws: `PostgresError`.
    func resolveMessageIDs(_ events: inout [Event], on connection: PostgresConnection) throws {
        var first: [MessageSlot: UUID] = [:]
        var order: [MessageSlot] = []
        for event in events where event.eventID.isMessageEventID {
            let slot = MessageSlot(session: event.sessionID, key: event.eventID.messageKey)
            if first[slot] == nil {
                first[slot] = event.eventID
                order.append(slot)
            }
        }
        guard !order.isEmpty else { return }
        // Rows locked in one order by every writer: two writers of overlapping batches cannot deadlock.
        order.sort { ($0.session.uuidString, $0.key.uuidString) < ($1.session.uuidString, $1.key.uuidString) }
        var resolved: [MessageSlot: UUID] = [:]
        // 3 parameters a row: 65,535 parameters a statement at most.
        for chunk in stride(from: 0, to: order.count, by: 10_000) {
            let slots = order[chunk..<min(chunk + 10_000, order.count)]
            var values: [String] = []
            var parameters: [PostgresValue] = []
            for slot in slots {
                let base = parameters.count
                values.append("($\(base + 1)::uuid, $\(base + 2)::uuid, $\(base + 3)::uuid)")
                parameters += [.uuid(slot.session), .uuid(slot.key), .uuid(first[slot] ?? slot.key)]
            }
            // `DO UPDATE` (to the same value) rather than `DO NOTHING`, so that RETURNING gives the
            // stored id of a message seen before as well as the new one.
            let rows = try connection.query(
                """
                INSERT INTO message_ids (session_id, message_key, event_id) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (session_id, message_key) DO UPDATE SET message_key = EXCLUDED.message_key
                RETURNING session_id, message_key, event_id
                """, parameters)
            for row in rows {
                guard let session = row["session_id"].uuid, let key = row["message_key"].uuid,
                    let id = row["event_id"].uuid
                else { continue }
                resolved[MessageSlot(session: session, key: key)] = id
            }
        }
        for index in events.indices where events[index].eventID.isMessageEventID {
            let slot = MessageSlot(session: events[index].sessionID, key: events[index].eventID.messageKey)
            if let id = resolved[slot] { events[index].eventID = id }
        }
        try forgetOldMessageIDs(on: connection)
    }

    /// Deletes message ids older than ``messageIDRetention``, at most once an hour per process:
    /// the table holds about a week of the messages that came without a time.
    private func forgetOldMessageIDs(on connection: PostgresConnection) throws {
        let now = Date()
        let due = Self.messageIDsForgotten.withLockedValue { last in
            guard now.timeIntervalSince(last) >= 3_600 else { return false }
            last = now
            return true
        }
        guard due else { return }
        try connection.query(
            "DELETE FROM message_ids WHERE seen_at < $1", [.timestamp(now.addingTimeInterval(-Self.messageIDRetention))]
        )
    }

    private static let messageIDsForgotten = NIOLockedValueBox(Date.distantPast)
}

/// One message within one session: the key of `message_ids`.
private struct MessageSlot: Hashable {
    var session: UUID
    var key: UUID
}
