import Foundation

/// The threads behind ``BlockingIO``: at most `limit`, each started when a call finds no idle one,
/// then kept waiting for the next call for the life of the process.
package final class BlockingIOPool: @unchecked Sendable {
    /// Guards `state`; idle threads wait on it. (`@unchecked`: every access to `state` holds it.)
    private let condition = NSCondition()
    private var state: BlockingIOPoolState<@Sendable () -> Void>

    package init(limit: Int) {
        state = BlockingIOPoolState(limit: limit)
    }

    /// Runs `work` on a pool thread: an idle one, a new one, or — at the limit — the first to
    /// finish its call.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        let action = state.submit(work)
        condition.unlock()
        switch action {
        case .wake: condition.signal()
        case .start: start()
        case .queue: break
        }
    }

    private func start() {
        let thread = Thread { [self] in serve() }
        // The size pthreads gives by default on Linux (8 MiB), which swift-nio's threads had too.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// One thread's life: the next call, or wait until one comes.
    private func serve() {
        condition.lock()
        while true {
            switch state.next() {
            case .run(let work):
                condition.unlock()
                work()
                condition.lock()
            case .wait:
                repeat { condition.wait() } while !state.takeWakeUp()
            }
        }
    }
}
