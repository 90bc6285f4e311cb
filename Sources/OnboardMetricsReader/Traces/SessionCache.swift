import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres

/// One database's sessions kept decoded between reports, for a long-running process (`funnel
/// dashboard`): a report reads the sessions from memory after asking PostgreSQL only for the
/// traces written since the last one (migration 0007's `written_by` and `trace_removals`).
///
/// What it holds is what ``TraceReader`` would emit from the same traces with no `--since` /
/// `--until` and no person links (those are applied as each report reads: a person is a function of
/// the id that opened the session, and the cohort of the person). So a report from the cache
/// equals one from the traces, which equals one from the events; `SessionCacheTests` checks that
/// after writes, resends, deletions and rebuilds.
///
/// Why the watermark is a transaction id: a catch-up writes traces in its own transaction, and
/// catch-ups of different buckets run side by side, so rows are not committed in the order of
/// any counter they could take. Every transaction below a snapshot's `xmin` had finished when the
/// snapshot was taken, so everything it wrote was seen; next time the cache asks for what was
/// written from that `xmin` on (some of it again: replacing a session by itself changes nothing).
public final class SessionCache: Sendable {
    /// The server whose traces are kept (a single server: not shards, not Citus).
    public let configuration: PostgresConfiguration
    /// Beyond this many events the cache keeps nothing and reports read as without it.
    public let maximumEvents: Int
    private let state = NIOLockedValueBox(State())

    /// - Parameters:
    ///   - configuration: the single server the reports read.
    ///   - maximumEvents: the most events kept decoded for one grouping (about 140 bytes each, for
    ///     both groupings together when they cut the sessions alike).
    public init(configuration: PostgresConfiguration, maximumEvents: Int) {
        self.configuration = configuration
        self.maximumEvents = maximumEvents
    }

    /// What a read of the cache gives: the kept sessions (`storage` at the positions in `runs`),
    /// and how many events they hold.
    struct Snapshot: Sendable {
        var storage: [RecordedSession]
        /// The live positions of `storage`, in order: replaced and removed sessions stay in
        /// `storage` until the cache compacts it.
        var runs: [Range<Int>]
        var events: Int

        /// The live sessions in one array (a copy: for tests and small reads).
        var sessions: [RecordedSession] { runs.flatMap { storage[$0] } }
    }

    /// Where one trace's sessions are in ``Entry/sessions``.
    ///
    /// Stored in 32 bits each: a grouping keeps a slot for every trace (842,000 at 10M events),
    /// in a dictionary of about twice as many buckets; with 64-bit fields a dashboard keeping
    /// every session at 10M peaked 28-29 MB higher (BENCHMARKS.md). No kept array reaches 2^32
    /// sessions (``Entry/isFull``), and one trace's events fit in a `bytea`.
    struct Slot: Sendable {
        private var storedStart: UInt32
        private var storedCount: UInt32
        private var storedEvents: UInt32

        var start: Int { Int(storedStart) }
        var count: Int { Int(storedCount) }
        var events: Int { Int(storedEvents) }

        init(start: Int, count: Int, events: Int) {
            storedStart = UInt32(clamping: start)
            storedCount = UInt32(clamping: count)
            storedEvents = UInt32(clamping: events)
        }
    }

    /// The grouping a set of kept sessions was made with: another needs sessions of its own.
    struct Key: Hashable, Sendable {
        var closeAfter: Int64
        var closeFinishedAfter: Int64?
    }

    struct Entry: Sendable {
        /// Every kept session in one array, in the order they were read, which is mostly the
        /// order of their events in memory: a replay walks memory forward (walking a dictionary
        /// of traces, reaching each session's events was a cache miss, a fifth of a warm
        /// report). A trace read again puts its sessions at the end and leaves its old ones
        /// dead in place, so a refresh costs what changed, not what is kept (rebuilding the
        /// array was most of the first report after 1 % more events).
        private(set) var sessions: [RecordedSession] = []
        private var alive: [Bool] = []
        private var dead = 0
        private var slots: [UUID: Slot] = [:]
        /// Sessions whose event ids are not all UUIDv7: while any is kept, reports read the events.
        private(set) var irregular: Set<UUID> = []
        private(set) var events = 0
        /// Whether the sessions array is as long as a ``Slot`` can point into: the cache then
        /// keeps no more (a process would need hundreds of GB to get there).
        var isFull: Bool { sessions.count >= Int(UInt32.max) }
        /// The xmin of the last read's snapshot (nil: nothing read yet).
        var watermark: UInt64?
        /// The server and database that read was from: the server's system identifier and the
        /// database's oid, as `read` asks for them.
        var database: String?

        mutating func remove(_ sessionID: UUID) {
            guard let old = slots.removeValue(forKey: sessionID) else { return }
            events -= old.events
            irregular.remove(sessionID)
            for position in old.start..<(old.start + old.count) { alive[position] = false }
            dead += old.count
        }

        mutating func put(
            _ sessionID: UUID, sessions added: [RecordedSession], events count: Int, irregular isIrregular: Bool
        ) {
            remove(sessionID)
            slots[sessionID] = Slot(start: sessions.count, count: added.count, events: count)
            sessions.append(contentsOf: added)
            alive.append(contentsOf: repeatElement(true, count: added.count))
            events += count
            if isIrregular { irregular.insert(sessionID) }
        }

        /// The kept sessions of one trace, in the order read (nil: not kept).
        func sessions(of sessionID: UUID) -> ArraySlice<RecordedSession>? {
            slots[sessionID].map { sessions[$0.start..<($0.start + $0.count)] }
        }

        /// Replaces each kept session of the trace that is identical to `other`'s session in the
        /// same place by `other`'s value, so the two hold one copy of its events. Two groupings
        /// differ only where a gap between a session's events falls between their closing times,
        /// so nearly every session is kept twice otherwise (about 100 bytes an event each).
        /// Identical, not `==`: the two read the trace in different snapshots, and a rewrite in
        /// between to canonically equivalent text (`==`, other bytes) would have left the older
        /// copy in both, each past the rewrite's watermark.
        mutating func share(_ sessionID: UUID, with other: Entry) {
            guard let slot = slots[sessionID], let theirs = other.sessions(of: sessionID), theirs.count == slot.count
            else { return }
            for (position, session) in zip(slot.start..<(slot.start + slot.count), theirs)
            where sessions[position].isIdentical(to: session) {
                sessions[position] = session
            }
        }

        /// Drops the dead sessions once they are a quarter of the array (the memory they hold
        /// is bounded, and a compaction's cost is spread over the changes that made it).
        mutating func compactIfNeeded() {
            guard dead > 0, dead * 4 >= sessions.count else { return }
            var kept: [RecordedSession] = []
            kept.reserveCapacity(sessions.count - dead)
            // One more: a trace of no sessions has a slot starting at the end.
            var moved = [Int](repeating: 0, count: sessions.count + 1)
            for position in sessions.indices where alive[position] {
                moved[position] = kept.count
                kept.append(sessions[position])
            }
            moved[sessions.count] = kept.count
            slots = slots.mapValues { Slot(start: moved[$0.start], count: $0.count, events: $0.events) }
            sessions = kept
            alive = Array(repeating: true, count: kept.count)
            dead = 0
        }

        /// The live sessions as a ``Snapshot``.
        func snapshot() -> Snapshot {
            guard dead > 0 else { return Snapshot(storage: sessions, runs: [sessions.indices], events: events) }
            var runs: [Range<Int>] = []
            var start: Int?
            for position in alive.indices {
                if alive[position] {
                    if start == nil { start = position }
                } else if let open = start {
                    runs.append(open..<position)
                    start = nil
                }
            }
            if let open = start { runs.append(open..<alive.count) }
            return Snapshot(storage: sessions, runs: runs, events: events)
        }
    }

    struct State: Sendable {
        /// At most two groupings are kept (the reports' default and one other); the older goes.
        var entries: [(key: Key, entry: Entry)] = []
        /// Groupings found to hold more than `maximumEvents`: not tried again by this process.
        var tooLarge: Set<Key> = []
    }

    /// The sessions for `reader`'s grouping, brought up to date; `nil` when the reader must read
    /// PostgreSQL instead (bounds, a source of events, irregular ids, too many events, a role
    /// that may not bring the traces up to date, a database without migration 0007).
    /// - Throws: `PostgresError` for a failed read.
    func snapshot(for reader: SessionReader) throws -> Snapshot? {
        guard reader.since == nil, reader.until == nil, reader.source != .events, reader.tables == nil,
            reader.buckets == nil
        else { return nil }
        let key = Key(
            closeAfter: DurationText.microseconds(reader.closeAfter),
            closeFinishedAfter: reader.closeFinishedAfter.map { DurationText.microseconds($0) })
        let configuration = configuration
        let maximumEvents = maximumEvents
        // Under the lock: a second report waits for the first one's refresh rather than doing
        // it again. Reading the sessions happens outside (the snapshot is a copy on write).
        return try state.withLockedValue { state in
            guard !state.tooLarge.contains(key) else { return nil }
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            guard try Self.catchUp(on: connection) else { return nil }
            // This grouping last; the other kept one is brought up to date beside it, so that
            // its next page only replays. Taken out, so that each is changed in place.
            var entries = state.entries.filter { $0.key != key }
            // At most two kept: this one and the latest other.
            if entries.count > 1 { entries.removeFirst(entries.count - 1) }
            entries.append((key, state.entries.first { $0.key == key }?.entry ?? Entry()))
            state.entries.removeAll()
            state.entries = try Self.update(&entries, state: &state, on: connection, maximumEvents: maximumEvents)
            guard let entry = state.entries.last(where: { $0.key == key })?.entry else { return nil }
            // Kept even with irregular ids: the next refresh may replace them.
            return entry.irregular.isEmpty ? entry.snapshot() : nil
        }
    }

    /// Brings every kept grouping up to date now, as the next report would first (the traces'
    /// catch-up, then what was written since): a long-running process calls it now and then, so
    /// that a report after new events finds them read. Keeps nothing new.
    /// - Returns: how many groupings are kept and up to date.
    /// - Throws: `PostgresError` for a failed connection or catch-up, the kept sessions left as
    ///   they were (their watermarks bring them up to date once the server answers: dropping
    ///   them made a restart of the server cost the next page a read of every trace, 17 s at 7M
    ///   events); for a failed read of the traces, the kept sessions dropped (the next report
    ///   reads them again).
    @discardableResult
    public func refreshKept() throws -> Int {
        let configuration = configuration
        let maximumEvents = maximumEvents
        return try state.withLockedValue { state in
            guard !state.entries.isEmpty else { return 0 }
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            // One catch-up serves every grouping. Where none can be run (a role that may only
            // read), the cache cannot serve a report, and what it kept goes.
            guard try Self.catchUp(on: connection) else {
                state.entries.removeAll()
                return 0
            }
            // Taken out, so that each entry's arrays are changed in place rather than copied.
            var entries = state.entries
            state.entries.removeAll()
            state.entries = try Self.update(&entries, state: &state, on: connection, maximumEvents: maximumEvents)
            return state.entries.count
        }
    }

    /// The live sessions of each kept grouping as they are, not brought up to date (for tests).
    func keptSessions() -> [[RecordedSession]] {
        state.withLockedValue { state in state.entries.map { $0.entry.snapshot().sessions } }
    }

    /// Brings the traces up to date (the catch-up every report runs); false when the cache
    /// cannot serve this time and the reader must read PostgreSQL (no migration 0007, a role that
    /// may only read).
    static func catchUp(on connection: PostgresConnection) throws -> Bool {
        try TraceBuilder().catchUpIfWritable(on: connection, parts: ShardedReader.automaticConnections)
    }

    /// Brings every one of `entries` up to date (``read(_:key:on:maximumEvents:sharing:)``, then
    /// a compaction). Those read before are brought up to date side by side: the first on
    /// `connection`, each other on a connection of its own. Reading one grouping's new traces is a
    /// core's work (about 50 ms for 6,000 sessions at 7M events); the other core would wait. One
    /// never read is read after them, alone, taking every equal session from the first (so a
    /// second grouping costs memory only for the sessions it cuts differently, also at its peak).
    /// - Returns: the entries still kept, in their order; one grown past `maximumEvents` is
    ///   dropped and remembered in `state` (`entries` is left empty: its arrays moved into the
    ///   threads, so they are changed in place, not copied).
    /// - Throws: the first entry's error, once all are done (every entry is dropped then).
    private static func update(
        _ entries: inout [(key: Key, entry: Entry)], state: inout State, on connection: PostgresConnection,
        maximumEvents: Int
    ) throws -> [(key: Key, entry: Entry)] {
        let boxes = entries.map { EntryBox(key: $0.key, entry: $0.entry) }
        entries.removeAll()
        let main = EntryBox.Connection(connection)
        let configuration = connection.configuration
        let warm = boxes.filter { $0.entry.watermark != nil }
        // Each box is touched by one thread only, and read here once all have returned.
        DispatchQueue.concurrentPerform(iterations: warm.count) { index in
            let box = warm[index]
            box.outcome = Result {
                if index == 0 {
                    return try read(&box.entry, key: box.key, on: main.connection, maximumEvents: maximumEvents)
                }
                let own = try PostgresConnection(configuration: configuration)
                defer { own.close() }
                return try read(&box.entry, key: box.key, on: own, maximumEvents: maximumEvents)
            }
        }
        let first = warm.first { (try? $0.outcome.get()) != nil }
        for box in boxes where box.entry.watermark == nil {
            box.outcome = Result {
                try read(&box.entry, key: box.key, on: connection, maximumEvents: maximumEvents, sharing: first?.entry)
            }
        }
        // The others read beside the first: equal sessions shared now, for the traces either read.
        if let first, let firstRead = try? first.outcome.get() {
            for box in warm where box !== first {
                guard let read = try? box.outcome.get() else { continue }
                for sessionID in read + firstRead { box.entry.share(sessionID, with: first.entry) }
            }
        }
        var kept: [(key: Key, entry: Entry)] = []
        for box in boxes {
            guard try box.outcome.get() != nil else {
                state.tooLarge.insert(box.key)
                continue
            }
            box.entry.compactIfNeeded()
            kept.append((box.key, box.entry))
        }
        return kept
    }

    /// One entry while a thread of ``update(_:state:on:maximumEvents:)`` brings it up to date.
    private final class EntryBox: @unchecked Sendable {
        /// The caller's connection, lent to the first thread only (connections are not `Sendable`).
        struct Connection: @unchecked Sendable {
            let connection: PostgresConnection
            init(_ connection: PostgresConnection) { self.connection = connection }
        }

        let key: Key
        var entry: Entry
        /// The traces read, nil when the entry grew past the most events kept.
        var outcome: Result<[UUID]?, any Error> = .success(nil)

        init(key: Key, entry: Entry) {
            self.key = key
            self.entry = entry
        }
    }

    /// Reads into `entry` what was written since its last read (traces already caught up), each
    /// session equal to one `other` keeps for its trace taken from there (``Entry/share(_:with:)``).
    /// - Returns: the traces read; nil when the entry then holds more than `maximumEvents`.
    static func read(
        _ entry: inout Entry, key: Key, on connection: PostgresConnection, maximumEvents: Int,
        sharing other: Entry? = nil
    ) throws -> [UUID]? {
        try TraceChanges.read(
            into: &entry, closeAfter: key.closeAfter, closeFinishedAfter: key.closeFinishedAfter, on: connection,
            maximumEvents: maximumEvents
        ) { sessionID, entry in
            if let other { entry.share(sessionID, with: other) }
        }
    }
}

extension SessionCache.Entry: TraceKeeper {
    mutating func restart() { self = Self() }

    mutating func put(
        _ sessionID: UUID, sessions: [RecordedSession], events: Int, irregular: Bool, firstEventID: UUID,
        lastEventID: UUID
    ) throws -> Bool {
        put(sessionID, sessions: sessions, events: events, irregular: irregular)
        return !isFull
    }

    mutating func mark(watermark: UInt64, database: String) {
        self.watermark = watermark
        self.database = database
    }
}
