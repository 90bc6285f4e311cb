import Foundation
import OnboardMetricsSDK

// The writers' side: what a writer does next, and what its I/O turned out to be.
extension RecorderStateMachine {
    /// One round of a writer's work.
    struct Work: Sendable, Hashable {
        /// Connect first (no connection, and the backoff is over).
        var connect: Bool
        /// The events to write (or, without a connection, to spool), sent and received times stamped.
        var batch: [Queued]
        /// The recorder is shutting down and this writer took nothing: it may stop after this round.
        var finishing: Bool
        /// Whether the writer took from the queue (only writer 0 does without a connection).
        var takesBatches: Bool
    }

    /// What a writer does next.
    enum Step: Sendable, Hashable {
        /// Nothing until this instant, or until woken.
        case wait(until: Date)
        case work(Work)
    }

    /// The writer's next step. `now` is the wall clock (timers); `stamp` the recorder's clock,
    /// which stamps `sent_at` (and `received_at` where the event has none).
    mutating func nextStep(writer number: Int, now: Date, stamp: Date) -> (Step, Effects) {
        writers[number].wakePending = false
        var effects = Effects()
        guard hasWork(number, now: now) else { return (.wait(until: nextWakeup(number, now: now)), effects) }
        // Only writer 0 takes batches while it has no connection (to spool them), so that
        // during an outage the spool gets events in recording order, one writer at a time.
        let takesBatches = number == 0 || writers[number].connected
        let batch = takesBatches ? takeBatch(now: now, stamp: stamp) : []
        if !batch.isEmpty {
            resumeRoomWaiters(&effects)
            // More than one writer's worth left: another writer can take the next batch.
            if queue.count >= settings.batchSize || (!queue.isEmpty && hasFlushWaiters) { wakeAll(&effects) }
        }
        let work = Work(
            connect: !writers[number].connected && now >= writers[number].nextAttempt, batch: batch,
            finishing: lifecycle == .shuttingDown && batch.isEmpty, takesBatches: takesBatches)
        return (.work(work), effects)
    }

    private func hasWork(_ number: Int, now: Date) -> Bool {
        let writer = writers[number]
        if lifecycle != .running { return true }
        if number > 0, !writer.connected {
            // Nothing to do but to connect, once there is something to write and the backoff is over.
            return (!queue.isEmpty || spoolHasData) && now >= writer.nextAttempt
        }
        if queue.count >= settings.batchSize { return true }
        if !queue.isEmpty, hasFlushWaiters || now.timeIntervalSince(lastSendTime) >= settings.flushInterval {
            return true
        }
        return spoolHasData && !drainingSpool && (writer.connected || now >= writer.nextAttempt)
    }

    private func nextWakeup(_ number: Int, now: Date) -> Date {
        var wakeup = lastSendTime.addingTimeInterval(settings.flushInterval)
        if spoolHasData || number > 0, !writers[number].connected { wakeup = min(wakeup, writers[number].nextAttempt) }
        return max(wakeup, now.addingTimeInterval(0.001))
    }

    private mutating func takeBatch(now: Date, stamp: Date) -> [Queued] {
        let count = min(settings.batchSize, queue.count)
        guard count > 0 else { return [] }
        var batch = Array(queue.prefix(count))
        queue.removeFirst(count)
        for index in batch.indices {
            // The recorder writes in-process: sending and receiving are the same instant.
            if batch[index].event.sentAt == nil { batch[index].event.sentAt = stamp }
            if batch[index].event.receivedAt == nil { batch[index].event.receivedAt = batch[index].event.sentAt }
        }
        noteSend(at: now)
        return batch
    }

    // MARK: - Connections

    /// The writer connected. - Returns: the failures in a row before it (for a "reconnected" line).
    mutating func connected(writer number: Int) -> (previousFailures: Int, Effects) {
        connectionAttempts += 1
        let failures = writers[number].failures
        writers[number].connected = true
        writers[number].failures = 0
        spoolFull = false
        var effects = Effects()
        resumeSettledFlushes(&effects)
        return (failures, effects)
    }

    /// How a failure is retried: the delay chosen, the failures in a row, and whether to log it
    /// (the first and every tenth).
    struct Retry: Sendable, Hashable {
        var delay: TimeInterval
        var failures: Int
        var log: Bool
    }

    /// The writer could not connect. `random` is uniform in 0...1, for the backoff's jitter.
    mutating func connectFailed(writer number: Int, now: Date, random: Double) -> (Retry, Effects) {
        connectionAttempts += 1
        return failed(writer: number, now: now, random: random)
    }

    /// The writer's connection failed while writing (or was found broken): drop it, back off.
    mutating func failed(writer number: Int, now: Date, random: Double) -> (Retry, Effects) {
        writers[number].connected = false
        writers[number].failures += 1
        let failures = writers[number].failures
        // Equal jitter: half the delay fixed, half random, so retries from many clients spread out.
        let delay = settings.backoff.delay(afterFailures: failures, random: random)
        writers[number].nextAttempt = now.addingTimeInterval(delay)
        counters.retried += 1
        var effects = Effects()
        resumeSettledFlushes(&effects)
        return (Retry(delay: delay, failures: failures, log: failures == 1 || failures.isMultiple(of: 10)), effects)
    }

    /// Whether the writer has a connection.
    func isConnected(_ number: Int) -> Bool { writers[number].connected }

    // MARK: - Spool

    /// Claims the drain of the spool for this writer: true when it has data, the writer a
    /// connection, and no other writer drains it.
    mutating func claimSpoolDrain(writer number: Int) -> Bool {
        guard writers[number].connected, spoolHasData, !drainingSpool else { return false }
        drainingSpool = true
        return true
    }

    /// The drain ended: `spoolEmpty` when every sealed segment was written (nil when it stopped early).
    mutating func drainEnded(spoolEmpty: Bool?) -> Effects {
        drainingSpool = false
        if let spoolEmpty { spoolHasData = !spoolEmpty }
        var effects = Effects()
        resumeSettledFlushes(&effects)
        wakeAll(&effects)
        return effects
    }

    /// Whether this writer spools what it cannot write (only writer 0, in recording order), or
    /// hands it back to the queue (the others, or without a spool: events then wait in memory).
    func spools(writer number: Int) -> Bool { settings.hasSpool && number == 0 }

    /// The batch is durably in the spool; `dropped` older events went over its cap.
    mutating func spooled(_ batch: [Queued], dropped: Int) -> Effects {
        // Marked as spooled in the same step as settled, so a flush never sees one without the other.
        spoolHasData = true
        var effects = settle(batch.map(\.ordinal), spooled: batch.count, dropped: dropped)
        wakeAll(&effects)
        return effects
    }

    /// The spool is at its cap: the batch goes back in front of the queue, in memory, and callers
    /// that can refuse new events (the collector, with 503) do so until a writer reconnects.
    mutating func spoolRefused(_ batch: [Queued]) -> Effects {
        spoolFull = true
        var effects = requeue(batch)
        // Callers waiting for room are told now (`.spoolFull`), not when the database is back.
        resumeRoomWaiters(&effects)
        return effects
    }

    /// Whether new events should be refused: the spool is full and no writer holds a connection.
    var isSaturated: Bool { spoolFull && !writers.contains(where: \.connected) }

    /// Puts events back in front of the queue, to be written (or spooled) again.
    mutating func requeue(_ batch: [Queued]) -> Effects {
        queue.prepend(contentsOf: batch)
        var effects = Effects()
        wakeAll(&effects)
        return effects
    }

    // MARK: - End of a round

    /// Ends a writer's round of `work`: at shutdown with no spool (or a full one) and no writer
    /// connected, the queue has nowhere to go and is dropped (counted) rather than hang the
    /// shutdown. Those events were never acknowledged: nothing committed or spooled is dropped.
    /// - Returns: whether the writer stops now, and how many events were dropped.
    mutating func endRound(writer number: Int, work: Work) -> (stop: Bool, dropped: Int, Effects) {
        var effects = Effects()
        var dropped = 0
        if lifecycle == .shuttingDown, !settings.hasSpool || spoolFull, !writers.contains(where: \.connected),
            !queue.isEmpty
        {
            let lost = Array(queue)
            queue.removeAll()
            dropped = lost.count
            effects = settle(lost.map(\.ordinal), dropped: lost.count)
        }
        resumeSettledFlushes(&effects)
        // At shutdown one drain attempt is enough: what is left stays in the spool for next time.
        // A writer without a connection leaves the rest to writer 0.
        return (work.finishing && (queue.isEmpty || !work.takesBatches), dropped, effects)
    }

    /// The writer stopped (its connection closed). - Returns: whether it was the last one: the
    /// shell then closes the spool and calls ``finish()``.
    mutating func writerStopped(_ number: Int) -> (last: Bool, Effects) {
        writers[number].connected = false
        writers[number].running = false
        var effects = Effects()
        resumeSettledFlushes(&effects)
        return (!writers.contains(where: \.running), effects)
    }

    /// Every writer has stopped and the spool is closed: the recorder has stopped.
    mutating func finish() -> Effects {
        var effects = Effects()
        stopped(&effects)
        return effects
    }
}
