import Foundation

/// A bounded queue of batches between the parsing thread and the writing thread, so parsing runs
/// ahead of the database by at most `capacity` batches (memory stays bounded) and neither waits
/// for the other while there is work.
///
/// Both sides block; they run on ``BlockingIO`` threads, never on the cooperative pool.
final class BatchHandoff<Element: Sendable>: @unchecked Sendable {
    // State is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var queue: [Element] = []
    private var finished = false
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Waits for room and adds `element`; false when the consumer gave up (stop producing).
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity, !cancelled { condition.wait() }
        guard !cancelled else { return false }
        queue.append(element)
        condition.broadcast()
        return true
    }

    /// Waits for the next element; nil once the producer finished and the queue is empty.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty, !finished, !cancelled { condition.wait() }
        guard !cancelled, !queue.isEmpty else { return nil }
        let element = queue.removeFirst()
        condition.broadcast()
        return element
    }

    /// The producer is done (normally or not).
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The consumer is done: wake and stop the producer.
    func cancel() {
        condition.lock()
        cancelled = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
