import DequeModule

/// What ``BlockingIOPool`` decides, without threads: whether a call wakes an idle thread, starts
/// one or waits in the queue, and what a thread does next.
package struct BlockingIOPoolState<Work> {
    /// What `submit` asks of the pool.
    package enum SubmitAction: Equatable { case wake, start, queue }
    /// What a thread does next.
    package enum NextAction {
        case run(Work)
        case wait
    }

    package let limit: Int
    /// Threads started.
    package private(set) var threads = 0
    /// Threads waiting that no call has woken yet.
    package private(set) var idle = 0
    /// Wake-ups given and not yet taken: a thread woken otherwise (spuriously) waits again.
    package private(set) var wakeUps = 0
    /// Calls waiting, oldest first (a pool that stays busy keeps no taken call).
    private var queue = Deque<Work>()

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Calls queued and not taken by a thread yet.
    package var queued: Int { queue.count }

    /// A call arrives. An idle thread is claimed for it at once (so a second call arriving before
    /// that thread wakes starts or wakes another: calls that wait on each other both run).
    package mutating func submit(_ work: Work) -> SubmitAction {
        queue.append(work)
        if idle > 0 {
            idle -= 1
            wakeUps += 1
            return .wake
        }
        guard threads < limit else { return .queue }
        threads += 1
        return .start
    }

    /// A thread is free: the oldest queued call, or wait (counted idle).
    package mutating func next() -> NextAction {
        guard let work = queue.popFirst() else {
            idle += 1
            return .wait
        }
        return .run(work)
    }

    /// A waiting thread woke: true if a call woke it (it then looks for work), false if spuriously.
    package mutating func takeWakeUp() -> Bool {
        guard wakeUps > 0 else { return false }
        wakeUps -= 1
        return true
    }
}
