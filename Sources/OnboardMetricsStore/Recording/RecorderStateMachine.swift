import DequeModule
import Foundation
import OnboardMetricsSDK

/// Every decision of an ``EventRecorder``, apart from its I/O: what is queued, which events are
/// settled, who waits for what, which writer connects, writes, spools or drains, when the
/// recorder has stopped. A value type whose `mutating` functions take what happened (times and
/// randomness passed in) and return what the shell must do (``Effects``: waiters to resume,
/// writers to wake), in the manner of postgres-nio's `PoolStateMachine`. The recorder keeps it
/// in one lock box; its tests drive it without a database.
struct RecorderStateMachine: Sendable {
    /// The recorder's settings the decisions depend on.
    struct Settings: Sendable, Hashable {
        var batchSize: Int
        var writerCount: Int
        var maximumBufferedEvents: Int
        var flushInterval: TimeInterval
        /// Whether a spool exists (writer 0 spools during an outage).
        var hasSpool: Bool
        var backoff: Backoff
    }

    /// An event waiting in the queue, numbered in the order it was recorded.
    struct Queued: Sendable, Hashable {
        var ordinal: Int
        var event: Event
    }

    /// A caller waiting in ``EventRecorder``, named by the shell.
    typealias WaiterID = Int

    /// A waiting flush resumed with its result.
    struct FlushResult: Sendable, Hashable {
        var waiter: WaiterID
        var allCommitted: Bool
    }

    /// What the shell must do after a change.
    struct Effects: Sendable, Hashable {
        /// Flushes to resume, with their results.
        var flushes: [FlushResult] = []
        /// `record` calls that waited for room: they try again.
        var rooms: [WaiterID] = []
        /// `shutdown` calls to resume: the recorder has stopped.
        var stops: [WaiterID] = []
        /// Writers to wake (each at most once until it next asks for a step).
        var wake: [Int] = []
    }

    enum Lifecycle: Sendable, Hashable {
        case running, shuttingDown, stopped
    }

    /// A ``EventRecorder/flush()`` call waiting for the writers.
    struct FlushWaiter: Sendable, Hashable {
        let id: WaiterID
        /// The ordinals that must be settled: from 0 to the events enqueued at a `flush()` call,
        /// a caller's own events for `flush(_:)`.
        let ordinals: Range<Int>
        /// Connection attempts at the call: during an outage a ``EventRecorder/flush()`` waits
        /// for one more attempt.
        let attempts: Int
        /// Whether it waits for that attempt: a flush of everything does; a flush of marked events
        /// (a collector's answer) does not — spooled, they are durable, and the answer goes at once.
        let waitsForAttempt: Bool
    }

    /// What the machine knows of one writer.
    struct Writer: Sendable, Hashable {
        var connected = false
        var nextAttempt = Date.distantPast
        var failures = 0
        /// Woken and not yet asked for a step: no second wake needed.
        var wakePending = false
        var running = true
    }

    let settings: Settings
    var queue = Deque<Queued>()
    var enqueued = 0
    var settled = SettledOrdinals()
    var counters = EventRecorder.Counters()
    var lifecycle = Lifecycle.running
    var spoolHasData: Bool
    var drainingSpool = false
    /// The spool refused a batch at its cap, and no writer has reached the database since.
    var spoolFull = false
    var writers: [Writer]
    var connectionAttempts = 0
    private var flushWaiters: [FlushWaiter] = []
    private var roomWaiters: [WaiterID] = []
    private var stopWaiters: [WaiterID] = []
    private var lastSend: Date
    private var started = false

    /// A machine for a recorder whose spool holds events already when `spoolHasData`.
    init(settings: Settings, spoolHasData: Bool, now: Date) {
        self.settings = settings
        self.spoolHasData = spoolHasData
        writers = Array(repeating: Writer(), count: max(settings.writerCount, 1))
        lastSend = now
    }

    // MARK: - Callers

    /// What `record` does with an event.
    enum RecordAction: Sendable, Hashable {
        /// Queued with this ordinal.
        case enqueued(ordinal: Int)
        /// The queue is full: wait for `rooms` to name the caller, then try again.
        case waitForRoom
        /// The recorder is shutting down or stopped.
        case shutDown
        /// The queue is full, the spool at its cap and the database unreachable: no room will be
        /// made until it is back, so the caller is refused rather than kept waiting.
        case spoolFull
    }

    /// Queues a valid event, or says why not. `waiter` names the caller should it have to wait.
    mutating func record(_ event: Event, waiter: WaiterID) -> (RecordAction, Effects) {
        guard lifecycle == .running else { return (.shutDown, Effects()) }
        var effects = Effects()
        // Room is made by the writers: a committed batch, or, during an outage, a spooled one.
        guard queue.count < settings.maximumBufferedEvents else {
            if isSaturated { return (.spoolFull, Effects()) }
            roomWaiters.append(waiter)
            wakeAll(&effects)
            return (.waitForRoom, effects)
        }
        let ordinal = enqueued
        queue.append(Queued(ordinal: ordinal, event: event))
        enqueued += 1
        counters.recorded += 1
        if queue.count >= settings.batchSize { wakeAll(&effects) }
        return (.enqueued(ordinal: ordinal), effects)
    }

    /// Counts an event refused as invalid before it was queued.
    mutating func rejectedInvalid() {
        counters.rejected += 1
    }

    /// A flush for `ordinals` (`nil`: everything recorded so far): its result now, or `nil` and
    /// the waiter is resumed later through ``Effects/flushes``.
    mutating func flush(ordinals: Range<Int>?, waiter: WaiterID) -> (Bool?, Effects) {
        let flush = FlushWaiter(
            id: waiter, ordinals: ordinals ?? 0..<enqueued, attempts: connectionAttempts,
            waitsForAttempt: ordinals == nil)
        if isSettled(flush) { return (result(of: flush), Effects()) }
        flushWaiters.append(flush)
        var effects = Effects()
        wakeAll(&effects)
        return (nil, effects)
    }

    /// Whether the writers still have to be started (true once: the caller starts them).
    mutating func start() -> Bool {
        defer { started = true }
        return !started
    }

    /// Begins the shutdown: later records fail; the writers flush, spool what they cannot write
    /// and stop. `waiter`, when given, is resumed through ``Effects/stops`` once stopped.
    /// - Returns: the final counters when the recorder has stopped already.
    mutating func shutdown(waiter: WaiterID?) -> (EventRecorder.Counters?, Effects) {
        if lifecycle == .stopped { return (counters, Effects()) }
        lifecycle = .shuttingDown
        if let waiter { stopWaiters.append(waiter) }
        var effects = Effects()
        wakeAll(&effects)
        return (nil, effects)
    }

    // MARK: - Settling

    /// Marks events settled and counts how; resumes the flushes that are done.
    mutating func settle(
        _ ordinals: [Int], committed: Int = 0, duplicates: Int = 0, rejected: Int = 0, spooled: Int = 0,
        dropped: Int = 0
    ) -> Effects {
        settled.insert(ordinals)
        counters.committed += committed
        counters.duplicates += duplicates
        counters.rejected += rejected
        counters.spooled += spooled
        counters.dropped += dropped
        var effects = Effects()
        resumeSettledFlushes(&effects)
        return effects
    }

    /// Counts what a spool drain wrote (those events were settled when they were spooled).
    mutating func drained(committed: Int, duplicates: Int, rejected: Int) {
        counters.committed += committed
        counters.duplicates += duplicates
        counters.rejected += rejected
    }

    // MARK: - Waiting rules

    /// Spooled events count once the database is reachable (a connected writer drains the spool
    /// first); while it is not, a flush of everything waits for one connection attempt after the
    /// call — not for the end of the outage — and a flush of marked events waits for nothing more.
    func isSettled(_ flush: FlushWaiter) -> Bool {
        guard lifecycle != .stopped else { return true }
        guard settled.contains(flush.ordinals) else { return false }
        guard spoolHasData else { return true }
        if writers.contains(where: \.connected) { return false }
        return !flush.waitsForAttempt || connectionAttempts != flush.attempts
    }

    /// Whether everything the flush waited for is committed (and nothing waits in the spool).
    func result(of flush: FlushWaiter) -> Bool {
        !spoolHasData && settled.contains(flush.ordinals)
    }

    mutating func resumeSettledFlushes(_ effects: inout Effects) {
        guard !flushWaiters.isEmpty else { return }
        var waiting: [FlushWaiter] = []
        for flush in flushWaiters {
            if isSettled(flush) {
                effects.flushes.append(FlushResult(waiter: flush.id, allCommitted: result(of: flush)))
            } else {
                waiting.append(flush)
            }
        }
        flushWaiters = waiting
    }

    /// Wakes every writer not already woken.
    mutating func wakeAll(_ effects: inout Effects) {
        for index in writers.indices where writers[index].running && !writers[index].wakePending {
            writers[index].wakePending = true
            effects.wake.append(index)
        }
    }

    /// Resumes the `record` calls waiting for room once there is some.
    mutating func resumeRoomWaiters(_ effects: inout Effects) {
        guard !roomWaiters.isEmpty,
            queue.count < settings.maximumBufferedEvents || lifecycle != .running || isSaturated
        else {
            return
        }
        effects.rooms += roomWaiters
        roomWaiters = []
    }

    /// Ends the wait of everyone once the last writer has stopped.
    mutating func stopped(_ effects: inout Effects) {
        lifecycle = .stopped
        resumeSettledFlushes(&effects)
        effects.rooms += roomWaiters
        roomWaiters = []
        effects.stops += stopWaiters
        stopWaiters = []
    }

    /// Notes a send (``EventRecorder/Configuration/flushInterval`` counts from it).
    mutating func noteSend(at now: Date) {
        lastSend = now
    }

    var lastSendTime: Date { lastSend }
    var hasFlushWaiters: Bool { !flushWaiters.isEmpty }
}

extension RecorderStateMachine {
    /// Registers `waiter` to be resumed once the recorder has stopped, without asking it to stop.
    /// - Returns: the final counters when it has stopped already.
    mutating func waitForStop(waiter: WaiterID) -> EventRecorder.Counters? {
        if lifecycle == .stopped { return counters }
        stopWaiters.append(waiter)
        return nil
    }
}
