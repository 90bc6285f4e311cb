import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsSDK
import OnboardMetricsStore

extension TraceBuilder {
    /// What a catch-up did.
    package struct Rebuilt: Sendable, Equatable {
        /// Sessions whose traces were written, however built.
        package var built = 0
        /// Of those, the ones encoded from the events the ingest kept rather than read back.
        package var encoded = 0
    }

    /// A taken session's marks: the ingest's, anyone else's, and whether it has a trace.
    struct StoredMarks: Sendable, Equatable {
        var mine: Int
        var others: Int
        var traced: Bool
    }

    /// The traces of the sessions an ingest kept the events of (``StoredSessions``), encoded on
    /// other threads from the moment the catch-up starts: the encoding, a third of the build's
    /// time, then overlaps the server's taking of the marks instead of following it.
    final class StoredTraces: Sendable {
        let stored: StoredSessions
        private let done = ConditionLock(value: false)
        /// Each thread's traces, by session (one dictionary each: merging them copied every trace).
        private let traces: NIOLockedValueBox<[[UUID: Built]]>

        init(_ stored: StoredSessions, threads: Int) {
            self.stored = stored
            let ids = stored.sessions.keys.filter { !stored.unknown.contains($0) }
            let chunks = ShardedReader.split(ids, into: max(threads, 1))
            let traces = NIOLockedValueBox([[UUID: Built]](repeating: [:], count: chunks.count))
            self.traces = traces
            // Threads of their own: on libdispatch's pool, sized to the cores, the catch-up's
            // parts waited for the encoding to finish before they could start.
            let remaining = NIOLockedValueBox(chunks.count)
            for (index, chunk) in chunks.enumerated() {
                Thread.detachNewThread { [done] in
                    var built: [UUID: Built] = [:]
                    built.reserveCapacity(chunk.count)
                    let (batches, receivedAt) = (stored.batches, stored.batchReceivedAt)
                    for id in chunk {
                        if let session = stored.sessions[id] {
                            built[id] = TraceBuilder.encode(id, session, batches: batches, receivedAt: receivedAt)
                        }
                    }
                    traces.withLockedValue { $0[index] = built }
                    if remaining.withLockedValue({ count in
                        count -= 1
                        return count == 0
                    }) {
                        done.lock()
                        done.unlock(withValue: true)
                    }
                }
            }
        }

        /// Session `id`'s trace encoded from the kept events, or nil when they may not be all of
        /// its events (it is then read back).
        ///
        /// They are all of them when the session has no trace and its marks, taken by this batch
        /// under the catch-up's locks, are exactly one of the ingest's for each statement that
        /// stored some of its events and none of anyone else's: events stored or deleted by anyone
        /// else left a mark of theirs, or one a catch-up took and replaced by a trace; and a
        /// catch-up that found no events (so wrote no trace) took one of the ingest's marks too, if
        /// that statement's events were stored when it looked.
        func trace(of id: UUID, marks: StoredMarks) -> Built? {
            guard let session = stored.sessions[id], !stored.unknown.contains(id), marks.mine == session.statements,
                marks.others == 0, !marks.traced
            else { return nil }
            done.lock(whenValue: true)
            done.unlock()
            return traces.withLockedValue { chunks in chunks.lazy.compactMap { $0[id] }.first }
        }
    }

    /// A session's trace from the events kept of it, in event-id order. `batches`: the kept
    /// batches (``StoredSessions/batches``), read through a local copy so no event is copied.
    static func encode(
        _ id: UUID, _ session: StoredSessions.Session, batches: [[Event]], receivedAt: [Int64]
    ) -> Built {
        var encoder = SessionTrace.Encoder()
        var scratch: [UInt8] = []
        for place in session.events.sorted(by: { $0.id.isBefore($1.id) }) {
            let (batch, row) = (Int(place.batch), Int(place.row))
            let received = EventStore.receivedAt(batches[batch][row].receivedAt, batch: receivedAt[batch])
            append(batches[batch][row], received: received, to: &encoder, scratch: &scratch)
        }
        return Built(sessionID: id, encoder: encoder)
    }

    /// Appends an event as a read of its stored row gives it (``append(_:to:)``): the values
    /// ``EventStore`` copied, the properties as `jsonb` gives them back (``JSONBText``), none when
    /// empty (``SessionReader/columns``). The strings' own bytes, not copies: copying six arrays
    /// an event was 7 % of an ingest's CPU (profiled). `scratch` keeps the properties' buffer.
    static func append(
        _ event: borrowing Event, received: Int64, to encoder: inout SessionTrace.Encoder, scratch: inout [UInt8]
    ) {
        scratch.removeAll(keepingCapacity: true)
        if !event.properties.isEmpty { JSONBText.appendObject(event.properties, to: &scratch) }
        let occurred = PostgresValue.postgresMicroseconds(event.occurredAt)
        let sent = event.sentAt.map(PostgresValue.postgresMicroseconds)
        withUTF8(event.userID) { userID in
            withUTF8(bytesOf: event.kind.rawValue) { kind in
                withUTF8(event.flowID) { flowID in
                    withUTF8(event.stepID) { stepID in
                        withUTF8(event.name) { name in
                            scratch.withUnsafeBytes { properties in
                                encoder.append(
                                    eventID: event.eventID, userID: userID, seq: Int32(clamping: event.seq),
                                    kind: kind, flowID: flowID,
                                    flowVersion: event.flowVersion.map { Int32(clamping: $0) }, stepID: stepID,
                                    name: name, occurred: occurred, sent: sent, received: received,
                                    properties: event.properties.isEmpty ? nil : properties)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The string's UTF-8 bytes.
    private static func withUTF8<Result>(
        bytesOf string: String, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        var string = string
        return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// The string's UTF-8 bytes (nil for nil).
    private static func withUTF8<Result>(
        _ string: String?, _ body: (UnsafeRawBufferPointer?) -> Result
    ) -> Result {
        guard var string else { return body(nil) }
        return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
