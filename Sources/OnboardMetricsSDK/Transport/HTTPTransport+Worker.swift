import Foundation

extension HTTPTransport {
    // MARK: - The worker thread

    /// Moves recorded events to disk, starts one request at a time and handles its answer.
    ///
    /// The request itself runs in a task, so the thread never blocks on the network: a slow
    /// collector does not hold up the disk writes that make room for ``record(_:)``.
    func runWorker() {
        let backlog = outbox.scanBacklog()
        condition.lock()
        enqueued += backlog
        scanned = true
        condition.broadcast()
        condition.unlock()
        if backlog > 0 { configuration.log("\(backlog) events left by an earlier transport are queued for sending") }

        condition.lock()
        while true {
            // Every change a flush waits for is made on this thread, or wakes it.
            releaseFlushWaiters()
            let now = Date()
            if let outcome = completion {
                completion = nil
                condition.unlock()
                if let batch = inFlightBatch { handle(outcome, for: batch) }
                inFlightBatch = nil
                condition.lock()
                inFlight = false
                condition.broadcast()
                continue
            }
            if shouldPersist(now) {
                let events = buffer.takeAll()
                condition.broadcast()
                condition.unlock()
                persist(events)
                condition.lock()
                continue
            }
            if stopping, !inFlight { break }
            if canAttempt(now) {
                flushKick = false
                inFlight = true
                condition.unlock()
                startAttempt()
                condition.lock()
                continue
            }
            _ = condition.wait(until: nextWakeup(now))
        }
        let left = buffer.takeAll()
        condition.unlock()
        // The disk was failing: one last try, so that the next transport may send them.
        if !left.isEmpty { persist(left, last: true) }
        outbox.close()
        condition.lock()
        stopped = true
        releaseFlushWaiters()
        for waiter in stopWaiters { waiter.resume() }
        stopWaiters = []
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the buffer is due on disk. Called with the lock held.
    private func shouldPersist(_ now: Date) -> Bool {
        guard !buffer.isEmpty, now >= nextPersistRetry else { return false }
        return buffer.count >= configuration.batchSize || now.timeIntervalSince(bufferSince) >= persistDelay
            || !flushWaiters.isEmpty || closing || stopping
    }

    /// Whether to start a request now. Called with the lock held.
    private func canAttempt(_ now: Date) -> Bool {
        guard !inFlight, !stopping, unsent > 0, now >= retryAfterUntil else { return false }
        if flushKick { return true }
        guard now >= nextAttempt else { return false }
        // A retried batch or the halves of a split one go as soon as the backoff allows.
        return outbox.hasPutBack || unsent >= configuration.batchSize || !flushWaiters.isEmpty
            || now.timeIntervalSince(lastSend) >= configuration.flushInterval
    }

    /// When something falls due. Called with the lock held.
    private func nextWakeup(_ now: Date) -> Date {
        var wakeup = now.addingTimeInterval(60)
        if !buffer.isEmpty {
            wakeup = min(wakeup, max(bufferSince.addingTimeInterval(persistDelay), nextPersistRetry))
        }
        if !inFlight, unsent > 0 {
            var attempt = max(nextAttempt, retryAfterUntil)
            if !outbox.hasPutBack, unsent < configuration.batchSize, flushWaiters.isEmpty {
                attempt = max(attempt, lastSend.addingTimeInterval(configuration.flushInterval))
            }
            wakeup = min(wakeup, attempt)
        }
        return max(wakeup, now.addingTimeInterval(0.001))
    }

    /// Appends events to the disk queue; on failure keeps them in memory and retries in a second.
    private func persist(_ events: [Event], last: Bool = false) {
        beforeDiskWrite()
        do {
            let dropped = try outbox.append(events)
            condition.lock()
            diskFailing = false
            counts.dropped += dropped
            removed += dropped
            condition.broadcast()
            condition.unlock()
            if dropped > 0 {
                configuration.log(
                    "the queue is over its \(configuration.maximumQueueBytes)-byte cap: \(dropped) oldest events dropped"
                )
            }
        } catch {
            condition.lock()
            defer { condition.unlock() }
            if last {
                configuration.log("\(error); \(events.count) events that were never written to disk are lost")
                counts.dropped += events.count
                removed += events.count
            } else {
                if !diskFailing { configuration.log("\(error); keeping events in memory and trying again") }
                buffer.prepend(contentsOf: events)
                let excess = buffer.count - maximumBufferedEvents
                if excess > 0 {
                    buffer.dropOldest(excess)
                    counts.dropped += excess
                    removed += excess
                }
                diskFailing = true
                nextPersistRetry = Date().addingTimeInterval(1)
                // A flush waiting for these events learns that they did not make it.
                failedAttempts += 1
            }
            condition.broadcast()
        }
    }

    /// Takes the next batch from the queue and posts it in a task; the answer comes back through
    /// `completion`.
    private func startAttempt() {
        guard
            let batch = outbox.nextBatch(
                maximumCount: max(1, configuration.batchSize), maximumBytes: configuration.maximumBatchBytes)
        else {
            // Counted but not readable (torn or corrupt records were quarantined): nothing to send.
            condition.lock()
            let lost = unsent
            counts.dropped += lost
            removed += lost
            inFlight = false
            condition.broadcast()
            condition.unlock()
            if lost > 0 { configuration.log("\(lost) queued events could not be read back from disk") }
            return
        }
        inFlightBatch = batch
        lastSend = Date()
        // Stamped per attempt: the server corrects clock skew with it.
        let body = batch.body(sentAt: configuration.clock())
        let poster = poster
        let appKey = configuration.appKey
        Task.detached { [self] in
            let outcome: Result<BatchPoster.Reply, any Error>
            do {
                outcome = .success(try await poster.post(body: body, appKey: appKey))
            } catch {
                outcome = .failure(error)
            }
            deliver(outcome)
        }
    }

    private func deliver(_ outcome: Result<BatchPoster.Reply, any Error>) {
        condition.lock()
        completion = outcome
        condition.broadcast()
        condition.unlock()
    }
}
