import Foundation

extension TransportStateMachine {
    // MARK: - The app's side: record, flush, shutdown

    /// What ``record(_:now:)`` decided.
    package enum RecordDecision: Sendable, Hashable {
        /// The transport is shut down: the events are refused.
        case shutDown
        /// The events are buffered; carry out `actions`.
        case accepted(Actions)
    }

    /// What ``flush(now:)`` decided.
    package enum FlushDecision: Sendable, Hashable {
        /// Return at once with this value.
        case done(Bool)
        /// Keep the caller's continuation under this id until an action resumes it.
        case waiting(WaiterID, Actions)
    }

    /// What ``stop()`` decided.
    package enum StopDecision: Sendable, Hashable {
        /// The worker has already stopped: return at once.
        case done
        /// Keep the caller's continuation under this id until an action resumes it.
        case waiting(WaiterID, Actions)
    }

    /// Counts events found invalid when recorded (none of them is buffered).
    package mutating func rejectInvalid(_ count: Int) {
        counts.rejected += max(0, count)
    }

    /// Buffers valid events recorded at `now`. Past the buffer's capacity the oldest are dropped
    /// and counted (the app's thread never waits for the disk, as the disk queue's cap keeps the
    /// newest too). The worker is woken to schedule the disk write when the buffer was empty,
    /// and at once when a batch is complete.
    package mutating func record(_ events: [Event], now: Date) -> RecordDecision {
        guard lifecycle == .running else { return .shutDown }
        var actions = Actions()
        if buffer.isEmpty { bufferSince = now }
        buffer.append(contentsOf: events)
        enqueued += events.count
        counts.recorded += events.count
        let excess = buffer.count - settings.maximumBufferedEvents
        if excess > 0 {
            buffer.dropOldest(excess)
            counts.dropped += excess
            removed += excess
            releaseFlushWaiters(into: &actions)
        }
        if buffer.count == events.count || buffer.count >= settings.batchSize {
            actions.wakeWorker = requestWake()
        }
        return .accepted(actions)
    }

    /// A flush called at `now`: done at once when nothing recorded is unsettled, when the worker
    /// has stopped, or (with `false`) while a `429 Retry-After` runs; otherwise it waits, and the
    /// worker is asked to attempt at once. Before the backlog on disk is counted, its target is
    /// set when it is.
    package mutating func flush(now: Date) -> FlushDecision {
        if scanned, removed >= enqueued || lifecycle == .stopped || now < retryAfterUntil {
            return .done(removed >= enqueued)
        }
        let waiter = FlushWaiter(id: makeWaiterID(), target: scanned ? enqueued : nil, failures: failedAttempts)
        flushWaiters.append(waiter)
        flushKick = true
        var actions = Actions()
        actions.wakeWorker = requestWake()
        return .waiting(waiter.id, actions)
    }

    /// The first step of a shutdown: refuse further events (what is buffered is written to disk
    /// without waiting for the delay).
    package mutating func close() {
        if lifecycle == .running { lifecycle = .closing }
    }

    /// The second step of a shutdown, after its flush: ask the worker to stop once no request is
    /// in flight (it writes what is left to disk and releases the folder).
    package mutating func stop() -> StopDecision {
        guard lifecycle != .stopped else { return .done }
        lifecycle = .stopping
        let id = makeWaiterID()
        stopWaiters.append(id)
        var actions = Actions()
        actions.wakeWorker = requestWake()
        return .waiting(id, actions)
    }
}
