import DequeModule
import Dispatch
import NIOConcurrencyHelpers

/// A bounded queue of batches between the parsing thread and the writing threads, so parsing runs
/// ahead of the database by at most `capacity` batches (memory stays bounded) and neither waits
/// for the other while there is work.
///
/// Both sides block; they run on ``BlockingIO`` threads, never on the cooperative pool. The queue
/// sits in a lock box; two semaphores count the free places (the producer waits on `room`) and
/// the queued batches plus one end-of-stream token that every consumer passes on (`ready`).
final class BatchHandoff<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var queue = Deque<Element>()
        var finished = false
        var cancelled = false
    }

    private let state = NIOLockedValueBox(State())
    private let room: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        room = DispatchSemaphore(value: max(capacity, 1))
    }

    /// Waits for room and adds `element`; false when the consumer gave up (stop producing).
    func put(_ element: Element) -> Bool {
        room.wait()
        let added = state.withLockedValue { state in
            guard !state.cancelled else { return false }
            state.queue.append(element)
            return true
        }
        if added {
            ready.signal()
        } else {
            room.signal()  // keep the cancel's wake-up for the next put
        }
        return added
    }

    /// Waits for the next element; nil once the producer finished and the queue is empty, or the
    /// consumer side was cancelled.
    func take() -> Element? {
        ready.wait()
        let element = state.withLockedValue { state -> Element? in
            state.cancelled ? nil : state.queue.popFirst()
        }
        if element != nil {
            room.signal()
        } else {
            ready.signal()  // the end: pass it on to the next consumer
        }
        return element
    }

    /// The producer is done (normally or not).
    func finish() {
        state.withLockedValue { $0.finished = true }
        ready.signal()
    }

    /// The consumer is done: wake and stop the producer, and the other consumers.
    func cancel() {
        state.withLockedValue { state in
            state.cancelled = true
            state.queue.removeAll()
        }
        ready.signal()
        room.signal()
    }
}
