import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// The events an ingest stored, by session, kept so the sessions' traces can be encoded from them
/// rather than read back from `events` after the load (reading them back was most of what the
/// build cost a small ingest: issue 33).
///
/// Each writing connection sets `onboardmetrics.trace_writer` to ``writer``, so the marks its
/// statements leave in `trace_dirty` carry it (migration 0008). Whether a session's events are
/// exactly the ones kept is decided by the database at build time, not here: the session has no
/// trace, and its marks are exactly one of ``writer``'s for each statement that stored some of
/// its events (``Session/statements``), none of anyone else's.
///
/// The batches are kept as they were parsed, and a session's events as places in them: copying
/// each event out took 6 % of an ingest's CPU (profiled). A batch most of whose events were not
/// stored (resent) is kept as a copy of the stored ones, so what is held stays within twice what
/// was stored; a batch with none stored is not kept at all.
///
/// The writers of one ingest each start from a copy of one value and share its ``limit``: what
/// they hold together stays within it.
package struct StoredSessions: Sendable {
    /// Where one stored event is: its batch and its index in that batch; and its id, to sort by
    /// without looking the event up (a third of the encoding's time went to those lookups).
    package struct Place: Sendable, Hashable {
        package var id: UUID
        package var batch: Int32
        package var row: Int32
    }

    /// What was stored of one session.
    package struct Session: Sendable {
        /// Its events, in the order they were stored (not sorted by id).
        package var events: [Place] = []
        /// Statements (one COPY a batch) that stored some of its events: each left one mark.
        package var statements = 0

        mutating func append(_ place: Place) {
            // The batch's first event of the session: its statement left one mark.
            if events.last?.batch != place.batch { statements += 1 }
            events.append(place)
        }
    }

    /// The events the writers of one ingest may hold together: one reservation for all of them, so
    /// the peak is the limit and not the limit once per writer.
    private final class Budget: Sendable {
        private let state: NIOLockedValueBox<(left: Int, overflowed: Bool)>

        init(_ limit: Int) { state = NIOLockedValueBox((max(limit, 0), limit <= 0)) }

        /// Takes `count` events from what is left; false, for every writer from then on, when
        /// there is not enough.
        func reserve(_ count: Int) -> Bool {
            state.withLockedValue { state in
                guard !state.overflowed, count <= state.left else {
                    state.overflowed = true
                    return false
                }
                state.left -= count
                return true
            }
        }

        var overflowed: Bool { state.withLockedValue { $0.overflowed } }
    }

    /// The value of `onboardmetrics.trace_writer` on the writing connections.
    package let writer: String
    /// The most events held, by all the ingest's writers together: past it, nothing is kept (the
    /// load is a bulk one, whose traces the first report builds).
    package let limit: Int
    private let budget: Budget
    package private(set) var sessions: [UUID: Session] = [:]
    /// Sessions some of whose stored rows are not known (a batch moved through the staging table):
    /// their traces are read back.
    package private(set) var unknown: Set<UUID> = []
    /// Events held: every event of the batches kept, stored or not.
    package private(set) var eventCount = 0
    /// Whether the ingest's writers went past ``limit`` (or it is 0): then nothing is kept. One
    /// answer for all of them, the budget's.
    package var overflowed: Bool { budget.overflowed }
    /// The batches' events, which ``Place``s point into; read them from a copy of this taken
    /// once: a lookup through a method copied each event (profiled).
    package private(set) var batches: [[Event]] = []
    /// Each batch's `received_at` for its events that carry none.
    package private(set) var batchReceivedAt: [Int64] = []
    /// The writers' connections, left open for the build that follows: a new connection is a new
    /// server process, 2-3 ms on the local socket and more while both cores are busy.
    private var connections: [SpareConnection] = []

    package init(writer: String = UUID().uuidString, limit: Int) {
        self.writer = writer
        self.limit = limit
        budget = Budget(limit)
    }

    /// Records one batch's write: `rows` are the indices into `events` of the events it stored,
    /// by one statement, or nil when the write does not tell which.
    package mutating func add(_ events: [Event], rows: [Int]?, receivedAt: Int64) {
        // Past the limit, this writer's or another's: nothing of this ingest will be used.
        guard !overflowed else { return dropAll() }
        guard let rows else {
            for event in events { unknown.insert(event.sessionID) }
            return
        }
        // All resent: nothing to encode, and holding the batch would hold a re-ingested file whole.
        guard !rows.isEmpty else { return }
        // Mostly resent: a copy of the stored events holds less than the batch.
        let (kept, keptRows) =
            rows.count * 2 < events.count ? (rows.map { events[$0] }, Array(rows.indices)) : (events, rows)
        guard budget.reserve(kept.count) else { return dropAll() }
        eventCount += kept.count
        let batch = Int32(batches.count)
        batches.append(kept)
        batchReceivedAt.append(receivedAt)
        for row in keptRows {
            let event = kept[row]
            sessions[event.sessionID, default: Session()].append(
                Place(id: event.eventID, batch: batch, row: Int32(row)))
        }
    }

    /// Leaves a writer's connection, idle, for the build.
    package mutating func leave(_ connection: PostgresConnection, configuration: PostgresConfiguration) {
        connections.append(SpareConnection(connection, configuration: configuration))
    }

    /// The writers' connections left for `configuration` (each can be taken once).
    package func takeConnections(for configuration: PostgresConfiguration) -> [PostgresConnection] {
        connections.compactMap { $0.take(for: configuration) }
    }

    /// Adds what another writer of the same ingest kept.
    package mutating func merge(_ other: StoredSessions) {
        connections += other.connections
        // The shared budget kept the two within the limit together.
        guard !overflowed, !other.overflowed else { return dropAll() }
        eventCount += other.eventCount
        unknown.formUnion(other.unknown)
        let offset = Int32(batches.count)
        batches += other.batches
        batchReceivedAt += other.batchReceivedAt
        for (id, session) in other.sessions {
            var merged = sessions[id] ?? Session()
            merged.events += session.events.map { Place(id: $0.id, batch: $0.batch + offset, row: $0.row) }
            merged.statements += session.statements
            sessions[id] = merged
        }
    }

    private mutating func dropAll() {
        connections = []
        sessions = [:]
        unknown = []
        batches = []
        batchReceivedAt = []
        eventCount = 0
    }
}
