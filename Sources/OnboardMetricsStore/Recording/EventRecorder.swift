import DequeModule
import Foundation
import Logging
import OnboardMetricsPostgres
import OnboardMetricsSDK
import Synchronization

/// Records events into PostgreSQL in the background: ``record(_:)`` returns at once, and writer
/// threads of the recorder's own (``Configuration/writeConnections``) send batches with binary COPY.
///
/// Guarantees: an accepted event is never lost while the process lives and never stored twice
/// (the database drops a repeated `event_id`). When the database is unreachable the recorder keeps
/// accepting events, retries with exponential backoff and jitter, and moves waiting events to an
/// append-only spool on disk (bounded by ``Configuration/spoolCapacityBytes``), which it drains
/// once the database is back — also after a crash or `SIGKILL`, when a new recorder opens the
/// same spool folder. Memory stays bounded by ``Configuration/maximumBufferedEvents``.
public final class EventRecorder: @unchecked Sendable {
    /// How the recorder batches, retries and spools.
    public struct Configuration: Sendable {
        /// The database to write to.
        public var database: PostgresConfiguration
        /// Events per COPY. Default 5,000: large enough that a commit's fixed cost (a WAL flush,
        /// about a millisecond) is a small share of the batch, small enough that one batch is
        /// a few megabytes of memory.
        public var batchSize = 5_000
        /// Connections (each with a writer thread) sending batches at once. Default 2: while one
        /// batch waits for its commit, the next is copied, so the database is never idle between
        /// batches (measured in BENCHMARKS.md). Batches are copied in event-id order, so writers of
        /// overlapping ids cannot deadlock, and ``EventRecorder/flush()`` still waits for every
        /// earlier event.
        public var writeConnections = 2
        /// Longest an event waits before its batch is sent, in seconds. Default 1: dashboards see
        /// data within a second, and a quiet app still sends few, larger batches.
        public var flushInterval: TimeInterval = 1
        /// Events held in memory at most. When the queue is full, ``record(_:)`` waits for room:
        /// with the database up, for the next batch to commit (a bulk load then runs at the
        /// database's pace); during an outage, only for the writer to move a batch to the spool.
        /// Default 100,000 (tens of megabytes).
        public var maximumBufferedEvents = 100_000
        /// The spool folder; `nil` for no spool (events then wait in memory during an outage).
        public var spoolDirectory: String? = ".onboardmetrics/spool"
        /// Bytes the spool may hold; past it the oldest events are dropped and counted. Default 1 GiB.
        public var spoolCapacityBytes = 1 << 30
        /// First retry delay after a failure, in seconds; doubles per failure up to ``maximumBackoff``.
        public var initialBackoff: TimeInterval = 0.1
        /// Longest retry delay, in seconds.
        public var maximumBackoff: TimeInterval = 30
        /// The clock that stamps `sent_at` (and `received_at` when the event has none).
        public var clock: @Sendable () -> Date = { Date() }
        /// Where the recorder reports what it had to do (reconnects, refused events, quarantined
        /// spool records), with the numbers as metadata.
        public var logger = Logger(label: "onboardmetrics.recorder")

        /// A configuration with the defaults above.
        public init(database: PostgresConfiguration) {
            self.database = database
        }
    }

    /// What the recorder has done so far.
    public struct Counters: Sendable, Hashable, Codable {
        /// Events accepted by ``record(_:)``.
        public var recorded = 0
        /// Events newly stored in the database.
        public var committed = 0
        /// Events the database already had (same `event_id`): dropped, not stored twice.
        public var duplicates = 0
        /// Failed attempts to reach or write to the database that were retried.
        public var retried = 0
        /// Events written to the spool.
        public var spooled = 0
        /// Events dropped because the spool was over its cap.
        public var dropped = 0
        /// Events refused: invalid at ``record(_:)``, or refused by the database for good.
        public var rejected = 0
    }

    let configuration: Configuration
    let validator = EventValidator()
    private let store = EventStore()
    private let condition = NSCondition()
    private let spool: Spool?
    private let metrics = RecorderMetrics()
    /// Ids of the batches taken lately by any writer: a batch repeating one probes before its COPY.
    private let recentIDs = Mutex(RecentEventIDs())

    // Guarded by `condition`.
    private var queue = Deque<Queued>()
    private var enqueued = 0
    /// Every event enqueued before this ordinal is settled (committed, duplicate, refused, spooled
    /// or dropped).
    private var settledBelow = 0
    /// Ordinals past `settledBelow` that are settled: batches of one writer that finished before
    /// an earlier batch of another. Few, sorted, disjoint.
    private var settledAbove: [Range<Int>] = []
    private var counts = Counters()
    private var flushWaiters: [FlushWaiter] = []
    private var spoolHasData = false
    private var drainingSpool = false
    /// The writers that hold a connection, by number.
    private var connectedWriters = Set<Int>()
    private var connectionAttempts = 0
    private var runningWriters = 0
    private var lastSend = Date()
    private var shuttingDown = false
    private var stopped = false

    /// An event waiting in the queue, numbered in the order it was recorded.
    private struct Queued {
        var ordinal: Int
        var event: Event
    }

    /// Starts a recorder: opens the spool (draining what an earlier process left there once the
    /// database is reachable) and the writer threads. They connect in the background.
    /// - Throws: `RecorderError` `.spool` when the spool folder cannot be used.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        if let folder = configuration.spoolDirectory {
            // The spool is SDK code (Foundation only): it reports through a closure.
            let logger = configuration.logger
            let log: @Sendable (String) -> Void = { logger.warning("\($0)", metadata: ["component": "spool"]) }
            let spool = try Spool(directory: folder, capacityBytes: configuration.spoolCapacityBytes, log: log)
            spoolHasData = !spool.isEmpty
            self.spool = spool
        } else {
            spool = nil
        }
        let writers = max(configuration.writeConnections, 1)
        runningWriters = writers
        for number in 0..<writers {
            let thread = Thread { [self] in runWriter(Writer(number: number)) }
            thread.name = "onboardmetrics.recorder.\(number)"
            thread.start()
        }
    }

    /// A snapshot of the counters.
    public var counters: Counters {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    /// Accepts an event for recording. Returns at once: the event is written in the background.
    /// - Throws: `EventValidationError` when the event is invalid (counted as rejected), or
    ///   `RecorderError` `.shutDown` after ``shutdown()``.
    public func record(_ event: Event) throws {
        _ = try enqueue(event)
    }

    /// Accepts an event like ``record(_:)`` and notes it in `mark`, for ``flush(_:)``.
    public func record(_ event: Event, marking mark: inout RecordingMark) throws {
        mark.note(try enqueue(event), recorder: 0)
    }

    /// Validates and queues an event.
    /// - Returns: its ordinal, the order in which it was recorded.
    func enqueue(_ event: Event) throws -> Int {
        do {
            try validator.validate(event, now: configuration.clock())
        } catch {
            condition.lock()
            counts.rejected += 1
            condition.unlock()
            throw error
        }
        condition.lock()
        defer { condition.unlock() }
        guard !shuttingDown else { throw RecorderError(.shutDown, "the recorder was shut down") }
        // Room is made by the writer: a committed batch, or, during an outage, a spooled one.
        while queue.count >= configuration.maximumBufferedEvents, !stopped {
            condition.signal()
            condition.wait()
        }
        let ordinal = enqueued
        queue.append(Queued(ordinal: ordinal, event: event))
        enqueued += 1
        counts.recorded += 1
        if queue.count >= configuration.batchSize { condition.broadcast() }
        return ordinal
    }

    /// Returns once every event recorded before the call is committed to the database — or,
    /// while the database is unreachable, durably spooled (it does not wait out an outage).
    /// With a reachable database, events spooled earlier are drained first.
    /// - Returns: `true` when everything is committed, `false` when some of it waits in the spool.
    @discardableResult
    public func flush() async -> Bool {
        await flush(ordinals: nil)
    }

    /// Returns once the events noted in `mark` are committed — or, while the database is
    /// unreachable, durably spooled — without waiting for events recorded by other callers
    /// before them (which ``flush()`` waits for).
    /// An empty mark waits for no event, only for the spool as ``flush()`` does.
    /// - Returns: `true` when they are committed and the spool is empty, `false` otherwise.
    @discardableResult
    public func flush(_ mark: RecordingMark) async -> Bool {
        await flush(ordinals: mark.ordinals(of: 0) ?? 0..<0)
    }

    /// Waits for the events numbered `ordinals`; `nil` for every event recorded so far.
    func flush(ordinals: Range<Int>?) async -> Bool {
        // A continuation, not a blocked thread: a server may have hundreds of flushes waiting,
        // and blocked threads would starve the pool its other tasks run on.
        await withCheckedContinuation { continuation in
            condition.lock()
            let waiter = FlushWaiter(
                ordinals: ordinals ?? 0..<enqueued, attempts: connectionAttempts, continuation: continuation)
            if isSettled(waiter) {
                let result = flushResult(waiter)
                condition.unlock()
                continuation.resume(returning: result)
                return
            }
            flushWaiters.append(waiter)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Flushes, stops the writers and closes their connections. Later ``record(_:)`` calls fail.
    /// - Returns: the final counters.
    @discardableResult
    public func shutdown() async -> Counters {
        (try? await BlockingIO.run { [self] in waitForShutdown() }) ?? counters
    }

    private func waitForShutdown() -> Counters {
        condition.lock()
        defer { condition.unlock() }
        shuttingDown = true
        condition.broadcast()
        while !stopped { condition.wait() }
        return counts
    }

    /// A ``flush()`` call waiting for the writer.
    private struct FlushWaiter {
        /// The ordinals that must be settled: from 0 to `enqueued` at a ``flush()`` call, a
        /// caller's own events for ``flush(_:)``.
        let ordinals: Range<Int>
        /// `connectionAttempts` at the call: during an outage one more attempt is waited for.
        let attempts: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Called with the lock held. Spooled events count once the database is reachable; while it
    /// is not, one connection attempt after the call is waited for, not the end of the outage.
    private func isSettled(_ waiter: FlushWaiter) -> Bool {
        stopped
            || !(!areSettled(waiter.ordinals)
                || (spoolHasData && (!connectedWriters.isEmpty || connectionAttempts == waiter.attempts)))
    }

    /// Called with the lock held.
    private func flushResult(_ waiter: FlushWaiter) -> Bool {
        !spoolHasData && areSettled(waiter.ordinals)
    }

    /// Called with the lock held: whether every event numbered `ordinals` is settled.
    private func areSettled(_ ordinals: Range<Int>) -> Bool {
        let start = max(ordinals.lowerBound, settledBelow)
        guard start < ordinals.upperBound else { return true }
        // `settledAbove` is merged: the rest of the range must lie inside one of its runs.
        return settledAbove.contains { $0.lowerBound <= start && ordinals.upperBound <= $0.upperBound }
    }

    /// Called with the lock held: removes the waiters that are settled; the caller resumes them
    /// once it has let go of the lock.
    private func takeSettledWaiters() -> [(CheckedContinuation<Bool, Never>, Bool)] {
        guard !flushWaiters.isEmpty else { return [] }
        var done: [(CheckedContinuation<Bool, Never>, Bool)] = []
        flushWaiters.removeAll { waiter in
            guard isSettled(waiter) else { return false }
            done.append((waiter.continuation, flushResult(waiter)))
            return true
        }
        return done
    }
}

extension EventRecorder {
    // MARK: - The writer threads

    /// The state of one writer thread: its connection and what it learned from its batches.
    /// Used only by that thread.
    private final class Writer {
        let number: Int
        var connection: PostgresConnection?
        var nextAttempt = Date.distantPast
        var failures = 0
        var partitions = PartitionPlanner()
        /// What the last batches showed (resends, the probe refused), for choosing how to write the next.
        var writeHints = EventStore.WriteHints()
        /// The month whose partitions (it and the next) were last made sure of, off the batch path.
        var preparedMonth = Int64.min
        var random = SystemRandomNumberGenerator()

        init(number: Int) {
            self.number = number
        }
    }

    private func runWriter(_ writer: Writer) {
        while true {
            condition.lock()
            while !hasWork(writer) {
                condition.wait(until: nextWakeup(writer))
            }
            // Only writer 0 takes batches while it has no connection (to spool them), so that
            // during an outage the spool gets events in recording order, one writer at a time.
            let takesBatches = writer.number == 0 || writer.connection != nil
            let batch = takesBatches ? takeBatch() : []
            let finishing = shuttingDown && batch.isEmpty
            condition.broadcast()  // room for record() calls waiting on a full queue
            condition.unlock()

            if writer.connection == nil, Date() >= writer.nextAttempt { connect(writer) }
            if writer.connection != nil, claimSpoolDrain() { drainSpool(writer) }
            if !batch.isEmpty { send(batch, by: writer) }

            condition.lock()
            if shuttingDown, spool == nil, connectedWriters.isEmpty, !queue.isEmpty {
                // Nowhere left to put them: say so rather than hang the shutdown.
                let lost = Array(queue)
                configuration.logger.error(
                    "shutting down with the database unreachable and no spool: events dropped",
                    metadata: ["dropped": "\(lost.count)"])
                counts.dropped += lost.count
                markSettled(lost)
                queue.removeAll()
            }
            condition.broadcast()
            metrics.publish(counts, queued: queue.count)
            let settledWaiters = takeSettledWaiters()
            // At shutdown one drain attempt is enough: what is left stays in the spool for next time.
            // A writer without a connection leaves the rest to writer 0.
            let exit = finishing && (queue.isEmpty || !takesBatches)
            condition.unlock()
            for (continuation, result) in settledWaiters { continuation.resume(returning: result) }
            if exit { break }
        }
        writer.connection?.close()
        writer.connection = nil
        condition.lock()
        publishConnection(of: writer)
        runningWriters -= 1
        let last = runningWriters == 0
        condition.unlock()
        guard last else { return }
        spool?.close()
        condition.lock()
        stopped = true
        condition.broadcast()
        metrics.publish(counts, queued: queue.count)
        let lastWaiters = takeSettledWaiters()
        condition.unlock()
        for (continuation, result) in lastWaiters { continuation.resume(returning: result) }
    }

    /// Called with the lock held.
    private func publishConnection(of writer: Writer) {
        if writer.connection != nil {
            connectedWriters.insert(writer.number)
        } else {
            connectedWriters.remove(writer.number)
        }
    }

    /// Called with the lock held.
    private func hasWork(_ writer: Writer) -> Bool {
        let waiting = queue.count
        if shuttingDown { return true }
        if writer.number > 0, writer.connection == nil {
            // Nothing to do but to connect, once there is something to write and the backoff is over.
            return (waiting > 0 || spoolHasData) && Date() >= writer.nextAttempt
        }
        if waiting >= configuration.batchSize { return true }
        if waiting > 0, !flushWaiters.isEmpty || Date().timeIntervalSince(lastSend) >= configuration.flushInterval {
            return true
        }
        if spoolHasData, !drainingSpool, writer.connection != nil || Date() >= writer.nextAttempt { return true }
        return false
    }

    /// Called with the lock held.
    private func nextWakeup(_ writer: Writer) -> Date {
        var wakeup = lastSend.addingTimeInterval(configuration.flushInterval)
        if spoolHasData || writer.number > 0, writer.connection == nil { wakeup = min(wakeup, writer.nextAttempt) }
        return max(wakeup, Date().addingTimeInterval(0.001))
    }

    /// Called with the lock held.
    private func takeBatch() -> [Queued] {
        let count = min(configuration.batchSize, queue.count)
        guard count > 0 else { return [] }
        let now = configuration.clock()
        var batch = Array(queue.prefix(count))
        queue.removeFirst(count)
        for index in batch.indices {
            // The recorder writes in-process: sending and receiving are the same instant.
            if batch[index].event.sentAt == nil { batch[index].event.sentAt = now }
            if batch[index].event.receivedAt == nil { batch[index].event.receivedAt = batch[index].event.sentAt }
        }
        lastSend = Date()
        return batch
    }

    /// True when the spool has data and no other writer is draining it: the caller drains it.
    private func claimSpoolDrain() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard spoolHasData, !drainingSpool else { return false }
        drainingSpool = true
        return true
    }

    private func connect(_ writer: Writer) {
        defer {
            condition.lock()
            connectionAttempts += 1
            publishConnection(of: writer)
            condition.broadcast()
            condition.unlock()
        }
        do {
            writer.connection = try PostgresConnection(configuration: configuration.database)
            if writer.failures > 0 {
                configuration.logger.notice(
                    "reconnected to the database",
                    metadata: ["failed_attempts": "\(writer.failures)", "writer": "\(writer.number)"])
            }
            writer.failures = 0
        } catch {
            failed(error, writer)
        }
    }

    /// Records a failure: drop the connection and schedule the next attempt with backoff and jitter.
    private func failed(_ error: Error, _ writer: Writer) {
        writer.connection?.close()
        writer.connection = nil
        writer.failures += 1
        let failures = writer.failures
        let ceiling = min(
            configuration.maximumBackoff, configuration.initialBackoff * pow(2, Double(min(failures - 1, 30))))
        // "Equal jitter": half the delay fixed, half random, so retries from many clients spread out.
        let delay = ceiling / 2 + Double.random(in: 0...(ceiling / 2), using: &writer.random)
        writer.nextAttempt = Date().addingTimeInterval(delay)
        condition.lock()
        counts.retried += 1
        publishConnection(of: writer)
        condition.unlock()
        if failures == 1 || failures.isMultiple(of: 10) {
            configuration.logger.warning(
                "database unavailable; retrying",
                metadata: [
                    "error": "\(error)", "failed_attempts": "\(failures)",
                    "retry_in_seconds": "\(String(format: "%.2f", delay))", "writer": "\(writer.number)",
                ])
        }
    }

    /// Writes a batch to the database, or to the spool when the database is not reachable.
    private func send(_ batch: [Queued], by writer: Writer) {
        let events = batch.map(\.event)
        if writer.connection != nil {
            do {
                let result = try write(events, by: writer)
                settle(batch) {
                    $0.committed += result.inserted
                    $0.duplicates += result.duplicates
                }
                return
            } catch let error as PostgresError where !error.isTransient {
                let outcome = isolateRejects(events[...], by: writer)
                let unsent = Set(outcome.unsent)
                let done = batch.indices.filter { !unsent.contains($0) }.map { batch[$0] }
                settle(done) {
                    $0.rejected += outcome.rejected
                    $0.committed += outcome.inserted
                    $0.duplicates += outcome.duplicates
                }
                // The connection failed while the refused events were being isolated: the rest wait.
                if !unsent.isEmpty { spoolOrRequeue(outcome.unsent.map { batch[$0] }, by: writer) }
                return
            } catch {
                failed(error, writer)
            }
        }
        spoolOrRequeue(batch, by: writer)
    }

    private func write(_ events: [Event], by writer: Writer) throws -> EventStore.WriteResult {
        guard let connection = writer.connection else { throw PostgresError(.connectionClosed, "not connected") }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { metrics.writeDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        try ensurePartitions(for: events, by: writer, on: connection)
        // A resend split from its original across batches: probe, rather than fail the COPY on it.
        if recentIDs.withLock({ $0.noteRepeats(of: events) }) { writer.writeHints.resending = true }
        return try store.write(events, on: connection, receivedAt: configuration.clock(), hints: &writer.writeHints)
    }

    /// Creates the partitions the batch needs (a few at most, see ``PartitionPlanner``). The
    /// current and next month are made sure of once per month, with the partitions that already
    /// exist, so live traffic never waits for a partition to be created. (Writers may both create
    /// a month: the schema's function creates each partition once, under an advisory lock.)
    private func ensurePartitions(for events: [Event], by writer: Writer, on connection: PostgresConnection) throws {
        let now = configuration.clock()
        let month = PartitionPlanner.monthIndex(milliseconds: Timestamp.milliseconds(now))
        if month != writer.preparedMonth {
            writer.partitions.markKnown(try store.partitionMonths(on: connection))
            let upcoming = [month, month + 1].filter { !writer.partitions.isKnown($0) }
            try store.ensurePartitions(months: upcoming, on: connection)
            writer.partitions.markKnown(upcoming)
            writer.preparedMonth = month
        }
        try store.ensurePartitions(for: events, now: now, planner: &writer.partitions, on: connection)
    }

    /// What ``isolateRejects(_:by:)`` did with a batch.
    private struct Isolation {
        var inserted = 0
        var duplicates = 0
        var rejected = 0
        /// Indexes of the events not written because the connection failed on the way: they must
        /// wait, not be lost.
        var unsent: [Int] = []

        static func + (left: Isolation, right: Isolation) -> Isolation {
            Isolation(
                inserted: left.inserted + right.inserted, duplicates: left.duplicates + right.duplicates,
                rejected: left.rejected + right.rejected, unsent: left.unsent + right.unsent)
        }
    }

    /// Splits a batch the database refused for good until the refused events are found; writes the
    /// rest. A failure of the connection itself (a crash, a restart) refuses nothing: what is not
    /// written by then comes back as `unsent`.
    private func isolateRejects(_ batch: ArraySlice<Event>, by writer: Writer) -> Isolation {
        do {
            let result = try write(Array(batch), by: writer)
            return Isolation(inserted: result.inserted, duplicates: result.duplicates)
        } catch let error as PostgresError where !error.isTransient && error.code != .connectionClosed {
            guard batch.count > 1 else {
                configuration.logger.error(
                    "event refused by the database",
                    metadata: ["event_id": "\(batch.first?.eventID.uuidString ?? "")", "error": "\(error)"])
                return Isolation(rejected: batch.count)
            }
            let middle = batch.startIndex + batch.count / 2
            return isolateRejects(batch[..<middle], by: writer) + isolateRejects(batch[middle...], by: writer)
        } catch {
            if writer.connection != nil { failed(error, writer) }
            return Isolation(unsent: Array(batch.indices))
        }
    }

    private func spoolOrRequeue(_ batch: [Queued], by writer: Writer) {
        // Only writer 0 spools (in recording order); the others hand their batch back to it.
        guard let spool, writer.number == 0 else {
            // No spool (or not writer 0): keep the events in memory, in front, and wait for the
            // database (or for writer 0 to spool them).
            condition.lock()
            queue.prepend(contentsOf: batch)
            condition.unlock()
            return
        }
        do {
            let dropped = try spool.append(batch.map(\.event))
            // Marked as spooled in the same step as settled, so a flush never sees one without the other.
            condition.lock()
            spoolHasData = true
            condition.unlock()
            settle(batch) {
                $0.spooled += batch.count
                $0.dropped += dropped
            }
        } catch {
            configuration.logger.error(
                "cannot spool; keeping the events in memory",
                metadata: ["error": "\(error)", "events": "\(batch.count)"])
            condition.lock()
            queue.prepend(contentsOf: batch)
            condition.unlock()
        }
    }

    /// Writes every sealed spool segment to the database, deleting each once committed. Called by
    /// the one writer that claimed the drain (``claimSpoolDrain()``).
    private func drainSpool(_ writer: Writer) {
        defer {
            condition.lock()
            drainingSpool = false
            condition.broadcast()
            condition.unlock()
        }
        guard let spool else { return }
        spool.sealActiveSegment()
        for segment in spool.sealedSegments() {
            let (events, _) = spool.read(segment: segment)
            var index = 0
            while index < events.count {
                let chunk = Array(events[index..<min(index + configuration.batchSize, events.count)])
                do {
                    let result = try write(chunk, by: writer)
                    condition.lock()
                    counts.committed += result.inserted
                    counts.duplicates += result.duplicates
                    condition.unlock()
                } catch let error as PostgresError where !error.isTransient {
                    let outcome = isolateRejects(chunk[...], by: writer)
                    condition.lock()
                    counts.committed += outcome.inserted
                    counts.duplicates += outcome.duplicates
                    counts.rejected += outcome.rejected
                    condition.unlock()
                    // The connection failed meanwhile: keep the segment; what was written is deduplicated
                    // when it is read again.
                    if !outcome.unsent.isEmpty { return }
                } catch {
                    failed(error, writer)
                    return
                }
                index += configuration.batchSize
            }
            spool.remove(segment: segment)
        }
        condition.lock()
        spoolHasData = !spool.isEmpty
        condition.unlock()
    }

    private func settle(_ batch: [Queued], _ update: (inout Counters) -> Void) {
        condition.lock()
        markSettled(batch)
        update(&counts)
        condition.broadcast()
        condition.unlock()
    }

    /// Called with the lock held: adds the events' ordinals to the settled ones. Writers finish
    /// batches out of order, and an event requeued after a failure may be settled after later
    /// ones; a flush waits for `settledBelow`, below which every ordinal is settled.
    private func markSettled(_ events: [Queued]) {
        guard !events.isEmpty else { return }
        let ordinals = events.map(\.ordinal).sorted()
        var runStart = ordinals[0]
        var runEnd = runStart + 1
        for ordinal in ordinals.dropFirst() {
            if ordinal == runEnd {
                runEnd += 1
            } else {
                settledAbove.append(runStart..<runEnd)
                runStart = ordinal
                runEnd = ordinal + 1
            }
        }
        settledAbove.append(runStart..<runEnd)
        settledAbove.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in settledAbove {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        while let first = merged.first, first.lowerBound <= settledBelow {
            settledBelow = max(settledBelow, first.upperBound)
            merged.removeFirst()
        }
        settledAbove = merged
    }
}
