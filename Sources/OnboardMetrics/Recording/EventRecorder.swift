import DequeModule
import Foundation
import Logging

/// Records events into PostgreSQL in the background: ``record(_:)`` returns at once, and a writer
/// thread of the recorder's own sends batches with binary COPY.
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

    // Guarded by `condition`.
    private var queue = Deque<Event>()
    private var enqueued = 0
    private var settled = 0
    private var counts = Counters()
    private var flushWaiters: [FlushWaiter] = []
    private var spoolHasData = false
    private var connected = false
    private var connectionAttempts = 0
    private var shuttingDown = false
    private var stopped = false

    // Used only by the writer thread.
    private var connection: PostgresConnection?
    private var nextAttempt = Date.distantPast
    private var failures = 0
    private var lastSend = Date()
    private var partitions = PartitionPlanner()
    /// What the last batches showed (resends, the probe refused), for choosing how to write the next.
    private var writeHints = EventStore.WriteHints()
    /// The month whose partitions (it and the next) were last made sure of, off the batch path.
    private var preparedMonth = Int64.min
    private var random = SystemRandomNumberGenerator()

    /// Starts a recorder: opens the spool (draining what an earlier process left there once the
    /// database is reachable) and the writer thread. It connects in the background.
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
        let thread = Thread { [self] in runWriter() }
        thread.name = "onboardmetrics.recorder"
        thread.start()
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
        queue.append(event)
        enqueued += 1
        counts.recorded += 1
        if queue.count >= configuration.batchSize { condition.broadcast() }
    }

    /// Returns once every event recorded before the call is committed to the database — or,
    /// while the database is unreachable, durably spooled (it does not wait out an outage).
    /// With a reachable database, events spooled earlier are drained first.
    /// - Returns: `true` when everything is committed, `false` when some of it waits in the spool.
    @discardableResult
    public func flush() async -> Bool {
        // A continuation, not a blocked thread: a server may have hundreds of flushes waiting,
        // and blocked threads would starve the pool its other tasks run on.
        await withCheckedContinuation { continuation in
            condition.lock()
            let waiter = FlushWaiter(target: enqueued, attempts: connectionAttempts, continuation: continuation)
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

    /// Flushes, stops the writer and closes the connection. Later ``record(_:)`` calls fail.
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
        /// `enqueued` at the call: everything up to here must be settled.
        let target: Int
        /// `connectionAttempts` at the call: during an outage one more attempt is waited for.
        let attempts: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Called with the lock held. Spooled events count once the database is reachable; while it
    /// is not, one connection attempt after the call is waited for, not the end of the outage.
    private func isSettled(_ waiter: FlushWaiter) -> Bool {
        stopped
            || !(settled < waiter.target || (spoolHasData && (connected || connectionAttempts == waiter.attempts)))
    }

    /// Called with the lock held.
    private func flushResult(_ waiter: FlushWaiter) -> Bool {
        !spoolHasData && settled >= waiter.target
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
    // MARK: - The writer thread

    private func runWriter() {
        while true {
            condition.lock()
            while !hasWork() {
                condition.wait(until: nextWakeup())
            }
            let batch = takeBatch()
            let finishing = shuttingDown && batch.isEmpty
            condition.broadcast()  // room for record() calls waiting on a full queue
            condition.unlock()

            if connection == nil, Date() >= nextAttempt { connect() }
            if connection != nil, spoolHasDataNow() { drainSpool() }
            if !batch.isEmpty { send(batch) }

            condition.lock()
            connected = connection != nil
            if shuttingDown, spool == nil, connection == nil, !queue.isEmpty {
                // Nowhere left to put them: say so rather than hang the shutdown.
                let lost = queue.count
                configuration.logger.error(
                    "shutting down with the database unreachable and no spool: events dropped",
                    metadata: ["dropped": "\(lost)"])
                counts.dropped += lost
                settled += lost
                queue.removeAll()
            }
            condition.broadcast()
            metrics.publish(counts, queued: queue.count)
            let settledWaiters = takeSettledWaiters()
            // At shutdown one drain attempt is enough: what is left stays in the spool for next time.
            let exit = finishing && queue.isEmpty
            condition.unlock()
            for (continuation, result) in settledWaiters { continuation.resume(returning: result) }
            if exit { break }
        }
        connection?.close()
        connection = nil
        spool?.close()
        condition.lock()
        stopped = true
        connected = false
        condition.broadcast()
        metrics.publish(counts, queued: queue.count)
        let lastWaiters = takeSettledWaiters()
        condition.unlock()
        for (continuation, result) in lastWaiters { continuation.resume(returning: result) }
    }

    /// Called with the lock held.
    private func hasWork() -> Bool {
        let waiting = queue.count
        if shuttingDown { return true }
        if waiting >= configuration.batchSize { return true }
        if waiting > 0, !flushWaiters.isEmpty || Date().timeIntervalSince(lastSend) >= configuration.flushInterval {
            return true
        }
        if spoolHasData, connection != nil || Date() >= nextAttempt { return true }
        return false
    }

    /// Called with the lock held.
    private func nextWakeup() -> Date {
        var wakeup = lastSend.addingTimeInterval(configuration.flushInterval)
        if spoolHasData, connection == nil { wakeup = min(wakeup, nextAttempt) }
        return max(wakeup, Date().addingTimeInterval(0.001))
    }

    /// Called with the lock held.
    private func takeBatch() -> [Event] {
        let count = min(configuration.batchSize, queue.count)
        guard count > 0 else { return [] }
        let now = configuration.clock()
        var batch = Array(queue.prefix(count))
        queue.removeFirst(count)
        for index in batch.indices {
            // The recorder writes in-process: sending and receiving are the same instant.
            if batch[index].sentAt == nil { batch[index].sentAt = now }
            if batch[index].receivedAt == nil { batch[index].receivedAt = batch[index].sentAt }
        }
        lastSend = Date()
        return batch
    }

    private func spoolHasDataNow() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return spoolHasData
    }

    private func connect() {
        defer {
            condition.lock()
            connectionAttempts += 1
            connected = connection != nil
            condition.broadcast()
            condition.unlock()
        }
        do {
            connection = try PostgresConnection(configuration: configuration.database)
            if failures > 0 {
                configuration.logger.notice("reconnected to the database", metadata: ["failed_attempts": "\(failures)"])
            }
            failures = 0
        } catch {
            failed(error)
        }
    }

    /// Records a failure: drop the connection and schedule the next attempt with backoff and jitter.
    private func failed(_ error: Error) {
        connection?.close()
        connection = nil
        failures += 1
        let ceiling = min(
            configuration.maximumBackoff, configuration.initialBackoff * pow(2, Double(min(failures - 1, 30))))
        // "Equal jitter": half the delay fixed, half random, so retries from many clients spread out.
        let delay = ceiling / 2 + Double.random(in: 0...(ceiling / 2), using: &random)
        nextAttempt = Date().addingTimeInterval(delay)
        condition.lock()
        counts.retried += 1
        condition.unlock()
        if failures == 1 || failures.isMultiple(of: 10) {
            configuration.logger.warning(
                "database unavailable; retrying",
                metadata: [
                    "error": "\(error)", "failed_attempts": "\(failures)",
                    "retry_in_seconds": "\(String(format: "%.2f", delay))",
                ])
        }
    }

    /// Writes a batch to the database, or to the spool when the database is not reachable.
    private func send(_ batch: [Event]) {
        if connection != nil {
            do {
                let result = try write(batch)
                settle(batch.count) {
                    $0.committed += result.inserted
                    $0.duplicates += result.duplicates
                }
                return
            } catch let error as PostgresError where !error.isTransient {
                let outcome = isolateRejects(batch)
                settle(batch.count - outcome.unsent.count) {
                    $0.rejected += outcome.rejected
                    $0.committed += outcome.inserted
                    $0.duplicates += outcome.duplicates
                }
                // The connection failed while the refused events were being isolated: the rest wait.
                if !outcome.unsent.isEmpty { spoolOrRequeue(outcome.unsent) }
                return
            } catch {
                failed(error)
            }
        }
        spoolOrRequeue(batch)
    }

    private func write(_ events: [Event]) throws -> EventStore.WriteResult {
        guard let connection else { throw PostgresError(.connectionClosed, "not connected") }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { metrics.writeDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        try ensurePartitions(for: events, on: connection)
        return try store.write(events, on: connection, receivedAt: configuration.clock(), hints: &writeHints)
    }

    /// Creates the partitions the batch needs (a few at most, see ``PartitionPlanner``). The
    /// current and next month are made sure of once per month, with the partitions that already
    /// exist, so live traffic never waits for a partition to be created.
    private func ensurePartitions(for events: [Event], on connection: PostgresConnection) throws {
        let now = configuration.clock()
        let month = PartitionPlanner.monthIndex(milliseconds: Timestamp.milliseconds(now))
        if month != preparedMonth {
            partitions.markKnown(try store.partitionMonths(on: connection))
            let upcoming = [month, month + 1].filter { !partitions.isKnown($0) }
            try store.ensurePartitions(months: upcoming, on: connection)
            partitions.markKnown(upcoming)
            preparedMonth = month
        }
        let missing = partitions.monthsToCreate(for: events, now: now)
        guard !missing.isEmpty else { return }
        try store.ensurePartitions(months: missing, on: connection)
        partitions.markKnown(missing)
    }

    /// What ``isolateRejects(_:)`` did with a batch.
    private struct Isolation {
        var inserted = 0
        var duplicates = 0
        var rejected = 0
        /// Events not written because the connection failed on the way: they must wait, not be lost.
        var unsent: [Event] = []

        static func + (left: Isolation, right: Isolation) -> Isolation {
            Isolation(
                inserted: left.inserted + right.inserted, duplicates: left.duplicates + right.duplicates,
                rejected: left.rejected + right.rejected, unsent: left.unsent + right.unsent)
        }
    }

    /// Splits a batch the database refused for good until the refused events are found; writes the
    /// rest. A failure of the connection itself (a crash, a restart) refuses nothing: what is not
    /// written by then comes back as `unsent`.
    private func isolateRejects(_ batch: [Event]) -> Isolation {
        do {
            let result = try write(batch)
            return Isolation(inserted: result.inserted, duplicates: result.duplicates)
        } catch let error as PostgresError where !error.isTransient && error.code != .connectionClosed {
            guard batch.count > 1 else {
                configuration.logger.error(
                    "event refused by the database", metadata: ["event_id": "\(batch[0].eventID)", "error": "\(error)"])
                return Isolation(rejected: 1)
            }
            let middle = batch.count / 2
            return isolateRejects(Array(batch[..<middle])) + isolateRejects(Array(batch[middle...]))
        } catch {
            if connection != nil { failed(error) }
            return Isolation(unsent: batch)
        }
    }

    private func spoolOrRequeue(_ batch: [Event]) {
        guard let spool else {
            // No spool: keep the events in memory, in front, and wait for the database.
            condition.lock()
            queue.prepend(contentsOf: batch)
            condition.unlock()
            return
        }
        do {
            let dropped = try spool.append(batch)
            // Marked as spooled in the same step as settled, so a flush never sees one without the other.
            condition.lock()
            spoolHasData = true
            condition.unlock()
            settle(batch.count) {
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

    /// Writes every sealed spool segment to the database, deleting each once committed.
    private func drainSpool() {
        guard let spool else { return }
        spool.sealActiveSegment()
        for segment in spool.sealedSegments() {
            let (events, _) = spool.read(segment: segment)
            var index = 0
            while index < events.count {
                let chunk = Array(events[index..<min(index + configuration.batchSize, events.count)])
                do {
                    let result = try write(chunk)
                    condition.lock()
                    counts.committed += result.inserted
                    counts.duplicates += result.duplicates
                    condition.unlock()
                } catch let error as PostgresError where !error.isTransient {
                    let outcome = isolateRejects(chunk)
                    condition.lock()
                    counts.committed += outcome.inserted
                    counts.duplicates += outcome.duplicates
                    counts.rejected += outcome.rejected
                    condition.unlock()
                    // The connection failed meanwhile: keep the segment; what was written is deduplicated
                    // when it is read again.
                    if !outcome.unsent.isEmpty { return }
                } catch {
                    failed(error)
                    return
                }
                index += configuration.batchSize
            }
            spool.remove(segment: segment)
        }
        condition.lock()
        spoolHasData = !spool.isEmpty
        condition.broadcast()
        condition.unlock()
    }

    private func settle(_ count: Int, _ update: (inout Counters) -> Void) {
        condition.lock()
        settled += count
        update(&counts)
        condition.broadcast()
        condition.unlock()
    }
}
