import Foundation

/// Every decision of ``HTTPTransport``, as a value: what is buffered and counted, who waits for
/// what, when to write to disk, when to send, and what an answer does.
///
/// Each input (an event recorded, a flush, a disk write done, an answer, the worker asking what
/// next) is a `mutating` function that returns what the transport must do: resume these waiters,
/// wake the worker, persist these events, post the next batch, put a batch back, wait until a
/// date, log a line, stop. The machine itself does no I/O, takes no lock and reads no clock or
/// random source: times and jitter come in as arguments, so its rules are tested by driving it
/// (`TransportStateMachineTests`), without threads, a network or a disk. The transport keeps it
/// in a ``LockedBox`` and carries out the actions (modelled on postgres-nio's `PoolStateMachine`).
///
/// The functions are grouped by who calls them: the app's side (`+Recording`), the worker thread
/// (`+Worker`) and the answers to requests (`+Answers`, reading them with `+Reading`).
///
/// Positions count events through the queue in order: `enqueued` is the backlog found on disk
/// plus every recorded event, `removed` those settled or dropped; the events in between are in
/// memory (`buffer`) or on disk (``unsent``). The stored properties are changed only by the
/// machine's own functions (they are readable for tests).
package struct TransportStateMachine: Sendable {
    /// Identifies a ``HTTPTransport/flush()`` or ``HTTPTransport/shutdown()`` call that waits.
    package typealias WaiterID = Int

    /// The numbers of the transport's configuration that its rules use.
    package struct Settings: Sendable, Hashable {
        /// Events per request at most (a full batch is sent without waiting for the interval).
        package var batchSize: Int
        /// Bytes of request body at most.
        package var maximumBatchBytes: Int
        /// Seconds between sends while less than a batch is waiting.
        package var flushInterval: TimeInterval
        /// Longest an event waits in memory before it is written to disk.
        package var persistDelay: TimeInterval
        /// Events held in memory at most; recording drops the oldest beyond.
        package var maximumBufferedEvents: Int
        /// The on-disk queue's byte cap (for the log line when it drops events).
        package var maximumQueueBytes: Int
        /// Retry delays after failures; its maximum is also the delay after `401`/`403`.
        package var backoff: Backoff

        /// The settings of `configuration`, with its defaults filled in.
        package init(configuration: HTTPTransport.Configuration) {
            batchSize = configuration.batchSize
            maximumBatchBytes = configuration.maximumBatchBytes
            flushInterval = configuration.flushInterval
            persistDelay = max(0, min(configuration.flushInterval, 1))
            maximumBufferedEvents = max(
                1, configuration.maximumBufferedEvents ?? max(1_000, 10 * configuration.batchSize))
            maximumQueueBytes = configuration.maximumQueueBytes
            backoff = Backoff(
                initial: configuration.initialBackoff, maximum: configuration.maximumBackoff, jitter: .full)
        }
    }

    /// How far the transport is through ``HTTPTransport/shutdown()``.
    package enum Lifecycle: Sendable, Comparable {
        /// Taking events.
        case running
        /// Refusing events; flushing what is left.
        case closing
        /// The worker is asked to stop once no request is in flight.
        case stopping
        /// The worker has stopped and released the folder.
        case stopped
    }

    /// The one request that may be under way, from the worker taking a batch to the answer's
    /// effects being applied.
    package enum Attempt: Sendable {
        /// No request: the worker may start one.
        case idle
        /// A batch was asked for and is being posted.
        case posting
        /// The answer arrived; the worker has not picked it up yet.
        case answered(Result<BatchPoster.Reply, any Error>)
        /// The worker has the answer and is deciding (``answer(_:for:clock:random:)``).
        case handling
        /// Decided; the worker is changing the outbox accordingly (``answerApplied(waited:now:)``).
        case applying(Verdict)

        /// Whether a request is under way (a new one must not start).
        package var inFlight: Bool {
            if case .idle = self { return false }
            return true
        }
    }

    /// A ``HTTPTransport/flush()`` call waiting for `removed` to reach `target`, or for a failed attempt.
    package struct FlushWaiter: Sendable, Hashable {
        /// Whom to resume.
        package let id: WaiterID
        /// `enqueued` at the call; `nil` until the backlog on disk is counted.
        package var target: Int?
        /// `failedAttempts` at the call: any failure after it ends the wait with `false`.
        package let failures: Int
    }

    /// A flush to resume, and what it returns.
    package struct FlushResumption: Sendable, Hashable {
        /// The waiter.
        package var id: WaiterID
        /// `true` when everything recorded before the call was settled.
        package var flushed: Bool
    }

    /// What the transport does after an input, in this order: log, wake the worker, resume.
    package struct Actions: Sendable, Hashable {
        /// Flushes to resume.
        package var resumeFlushes: [FlushResumption] = []
        /// Shutdowns to resume (the worker has stopped).
        package var resumeStops: [WaiterID] = []
        /// Whether to signal the worker's semaphore (at most once until it next waits).
        package var wakeWorker = false
        /// Lines for ``HTTPTransport/Configuration/log``.
        package var log: [String] = []

        /// No action.
        package init() {}
    }

    /// The configuration's numbers.
    package let settings: Settings

    // What is recorded, and where it is.
    var buffer = EventBuffer()
    /// When the oldest buffered event was recorded.
    var bufferSince: Date
    var counts = HTTPTransport.Counters()
    var enqueued = 0
    var removed = 0
    /// Whether the backlog an earlier transport left on disk is counted in `enqueued`.
    var scanned = false
    /// Failed attempts (requests and disk writes) so far: a flush waiting across one returns `false`.
    var failedAttempts = 0

    // Who waits.
    var flushWaiters: [FlushWaiter] = []
    var stopWaiters: [WaiterID] = []
    var nextWaiterID: WaiterID = 0
    /// Set by a flush: attempt at once, cutting short a backoff wait.
    var flushKick = false
    /// Whether the worker was signalled and has not waited since (so it is not signalled twice).
    var wakePending = false
    var lifecycle = Lifecycle.running

    // The disk.
    var diskFailing = false
    var nextPersistRetry = Date.distantPast

    // Sending.
    var attempt = Attempt.idle
    /// Batches put back in the outbox (a retry, or halves of a split one): they go before anything else.
    var putBackBatches = 0
    /// Until when a `429 Retry-After` forbids sending, even on flush.
    var retryAfterUntil = Date.distantPast
    var nextAttempt = Date.distantPast
    var lastSend: Date
    var consecutiveFailures = 0
    var authFailures = 0

    /// A machine with nothing recorded, whose interval counts from `now`.
    package init(settings: Settings, now: Date) {
        self.settings = settings
        bufferSince = now
        lastSend = now
    }

    /// A snapshot of the counters.
    package var counters: HTTPTransport.Counters {
        var snapshot = counts
        snapshot.buffered = buffer.count
        snapshot.queued = unsent
        return snapshot
    }

    /// Events on disk (or being written there) not yet settled.
    package var unsent: Int { max(0, enqueued - removed - buffer.count) }

    /// Hands out the next waiter id.
    mutating func makeWaiterID() -> WaiterID {
        nextWaiterID += 1
        return nextWaiterID
    }

    /// Whether to signal the worker: only when no signal is pending, so signals do not pile up.
    mutating func requestWake() -> Bool {
        guard !wakePending else { return false }
        wakePending = true
        return true
    }

    /// Resumes the flushes that are done. Called after every change of `removed`,
    /// `failedAttempts`, `scanned` or `lifecycle`.
    mutating func releaseFlushWaiters(into actions: inout Actions) {
        guard !flushWaiters.isEmpty else { return }
        let stopped = lifecycle == .stopped
        var waiting: [FlushWaiter] = []
        for var waiter in flushWaiters {
            if waiter.target == nil, scanned { waiter.target = enqueued }
            if let target = waiter.target, stopped || removed >= target || failedAttempts != waiter.failures {
                actions.resumeFlushes.append(FlushResumption(id: waiter.id, flushed: removed >= target))
            } else if stopped {
                actions.resumeFlushes.append(FlushResumption(id: waiter.id, flushed: false))
            } else {
                waiting.append(waiter)
            }
        }
        flushWaiters = waiting
        // A kick the worker did not use (an attempt already under way failed) must not outlive the flush.
        if flushWaiters.isEmpty { flushKick = false }
    }
}
