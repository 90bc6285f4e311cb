import Foundation
import NIOPosix

/// Runs blocking work (libpq calls, process launches, waits) on a bounded pool of threads of its
/// own (swift-nio's `NIOThreadPool`), so it never occupies Swift's cooperative thread pool.
///
/// Not on Dispatch: on Linux, Dispatch's worker threads are the pool Swift's async tasks run on
/// too, and it grows only slowly past the number of cores, so a few blocked workers can stall
/// every task of the process (seen in the test suite: parallel suites waiting on processes and
/// databases hung). Work beyond ``threadCount`` calls at once waits its turn instead of starting
/// more threads. Callers must not make one pooled call wait for another that is not running yet
/// (`funnel ingest`'s reader and writer are two calls at once, so the pool has room for many).
package enum BlockingIO {
    /// Calls that may block at once: far more than the cores, because most calls wait (on the
    /// database, a child process, the disk) rather than compute.
    package static let threadCount = 64

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
        return pool
    }()

    /// Runs `body` on a pool thread and returns its result to the awaiting task.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            pool.submit { state in
                switch state {
                case .active: continuation.resume(with: Result { try body() })
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                }
            }
        }
    }
}
