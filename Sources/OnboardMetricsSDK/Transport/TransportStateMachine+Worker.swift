import Foundation

extension TransportStateMachine {
    // MARK: - The worker's side: what next, and what became of it

    /// What the worker thread does next (``nextAction(now:)``).
    package enum WorkerAction: Sendable {
        /// The answer to the batch in flight arrived: decide with ``answer(_:for:clock:random:)``.
        case handleAnswer(Result<BatchPoster.Reply, any Error>)
        /// Append these events to the on-disk queue, then report ``persisted(dropped:)`` or
        /// ``persistFailed(_:error:last:now:)``.
        case persist([Event])
        /// Take the next batch from the on-disk queue and post it (``batchTaken(now:)``), or report
        /// ``batchUnavailable()`` when there is none.
        case sendNextBatch(maximumCount: Int, maximumBytes: Int)
        /// Sleep until this date, or until woken.
        case wait(until: Date)
        /// Write these last events to disk (``persistFailed(_:error:last:now:)`` with `last`), close
        /// the queue, report ``stopped()`` and end the thread.
        case stop(leftovers: [Event])
    }

    /// The worker's next step at `now`: an answer first, then a disk write that is due, then
    /// stopping (once no request is in flight), then a request that is due; else a wait until
    /// something falls due. Every change a flush waits for is made by the worker, or wakes it.
    package mutating func nextAction(now: Date) -> WorkerAction {
        if case .answered(let outcome) = attempt {
            attempt = .handling
            return .handleAnswer(outcome)
        }
        if shouldPersist(now) { return .persist(buffer.takeAll()) }
        if lifecycle == .stopping, !attempt.inFlight { return .stop(leftovers: buffer.takeAll()) }
        if canAttempt(now) {
            flushKick = false
            attempt = .posting
            return .sendNextBatch(maximumCount: max(1, settings.batchSize), maximumBytes: settings.maximumBatchBytes)
        }
        // The worker is about to sleep: the next input must signal it again.
        wakePending = false
        return .wait(until: nextWakeup(now))
    }

    /// The worker counted `count` events an earlier transport left on disk; flushes waiting for
    /// the count get their targets now.
    package mutating func backlogScanned(_ count: Int) -> Actions {
        var actions = Actions()
        enqueued += max(0, count)
        scanned = true
        if count > 0 { actions.log.append("\(count) events left by an earlier transport are queued for sending") }
        releaseFlushWaiters(into: &actions)
        return actions
    }

    /// The events of a ``WorkerAction/persist(_:)`` are on disk; `dropped` older ones were
    /// deleted to keep the queue under its byte cap.
    package mutating func persisted(dropped: Int) -> Actions {
        var actions = Actions()
        diskFailing = false
        counts.dropped += dropped
        removed += dropped
        if dropped > 0 {
            actions.log.append(
                "the queue is over its \(settings.maximumQueueBytes)-byte cap: \(dropped) oldest events dropped")
        }
        releaseFlushWaiters(into: &actions)
        return actions
    }

    /// Writing `events` to disk failed with `error` (its description) at `now`. They go back in
    /// front of the buffer (the oldest dropped past its capacity) and the write is retried a
    /// second later; a flush waiting for them learns that they did not make it. On the `last`
    /// write, at stop, they are lost and counted as dropped.
    package mutating func persistFailed(_ events: [Event], error: String, last: Bool, now: Date) -> Actions {
        var actions = Actions()
        if last {
            actions.log.append("\(error); \(events.count) events that were never written to disk are lost")
            counts.dropped += events.count
            removed += events.count
        } else {
            if !diskFailing { actions.log.append("\(error); keeping events in memory and trying again") }
            buffer.prepend(contentsOf: events)
            let excess = buffer.count - settings.maximumBufferedEvents
            if excess > 0 {
                buffer.dropOldest(excess)
                counts.dropped += excess
                removed += excess
            }
            diskFailing = true
            nextPersistRetry = now.addingTimeInterval(1)
            failedAttempts += 1
        }
        releaseFlushWaiters(into: &actions)
        return actions
    }

    /// The worker took a batch for ``WorkerAction/sendNextBatch(maximumCount:maximumBytes:)`` at
    /// `now` (a put-back one first, when there is one) and posts it.
    package mutating func batchTaken(now: Date) {
        lastSend = now
        if putBackBatches > 0 { putBackBatches -= 1 }
    }

    /// No batch could be taken: the events counted on disk could not be read back (torn or
    /// corrupt records were quarantined), so they are dropped.
    package mutating func batchUnavailable() -> Actions {
        var actions = Actions()
        let lost = unsent
        counts.dropped += lost
        removed += lost
        attempt = .idle
        if lost > 0 { actions.log.append("\(lost) queued events could not be read back from disk") }
        releaseFlushWaiters(into: &actions)
        return actions
    }

    /// The request in flight ended with `outcome` (in the task that posted it).
    package mutating func answerArrived(_ outcome: Result<BatchPoster.Reply, any Error>) -> Actions {
        var actions = Actions()
        attempt = .answered(outcome)
        actions.wakeWorker = requestWake()
        return actions
    }

    /// The worker has stopped and closed the queue: every waiter is resumed.
    package mutating func stopped() -> Actions {
        var actions = Actions()
        lifecycle = .stopped
        releaseFlushWaiters(into: &actions)
        actions.resumeStops = stopWaiters
        stopWaiters = []
        return actions
    }

    // MARK: - When things fall due

    /// Whether the buffer is due on disk: a batch's worth, the delay passed, a flush or a
    /// shutdown waiting — unless a failed write is waiting for its retry.
    func shouldPersist(_ now: Date) -> Bool {
        guard !buffer.isEmpty, now >= nextPersistRetry else { return false }
        return buffer.count >= settings.batchSize || now.timeIntervalSince(bufferSince) >= settings.persistDelay
            || !flushWaiters.isEmpty || lifecycle >= .closing
    }

    /// Whether to start a request now. A flush cuts a backoff short, never a `Retry-After`.
    func canAttempt(_ now: Date) -> Bool {
        guard !attempt.inFlight, lifecycle < .stopping, unsent > 0, now >= retryAfterUntil else { return false }
        if flushKick { return true }
        guard now >= nextAttempt else { return false }
        // A retried batch or the halves of a split one go as soon as the backoff allows.
        return putBackBatches > 0 || unsent >= settings.batchSize || !flushWaiters.isEmpty
            || now.timeIntervalSince(lastSend) >= settings.flushInterval
    }

    /// When something falls due (at most a minute away, at least a millisecond).
    func nextWakeup(_ now: Date) -> Date {
        var wakeup = now.addingTimeInterval(60)
        if !buffer.isEmpty {
            wakeup = min(wakeup, max(bufferSince.addingTimeInterval(settings.persistDelay), nextPersistRetry))
        }
        if !attempt.inFlight, unsent > 0 {
            var due = max(nextAttempt, retryAfterUntil)
            if putBackBatches == 0, unsent < settings.batchSize, flushWaiters.isEmpty {
                due = max(due, lastSend.addingTimeInterval(settings.flushInterval))
            }
            wakeup = min(wakeup, due)
        }
        return max(wakeup, now.addingTimeInterval(0.001))
    }
}
