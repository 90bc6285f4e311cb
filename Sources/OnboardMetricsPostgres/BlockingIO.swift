import Foundation

/// Runs blocking work (libpq calls, process launches, waits) on a bounded pool of threads of its
/// own, so it never occupies Swift's cooperative thread pool.
///
/// Not on Dispatch: on Linux, Dispatch's worker threads are the pool Swift's async tasks run on
/// too, and it grows only slowly past the number of cores, so a few blocked workers can stall
/// every task of the process (seen in the test suite: parallel suites waiting on processes and
/// databases hung). Work beyond ``threadCount`` calls at once waits its turn instead of starting
/// more threads. Callers must not make one pooled call wait for another that is not running yet
/// (`funnel ingest`'s reader and writer are two calls at once, so the pool has room for many).
///
/// Threads are started as calls need them (``BlockingIOPool``), not all at once: swift-nio's
/// `NIOThreadPool`, used before, started all 64 before the first call ran, 2–3 ms of every
/// `funnel` run that makes one or two calls (`perf stat`, BENCHMARKS.md).
package enum BlockingIO {
    /// Calls that may block at once: far more than the cores, because most calls wait (on the
    /// database, a child process, the disk) rather than compute.
    package static let threadCount = 64

    private static let pool = BlockingIOPool(limit: threadCount)

    /// Runs `body` on a pool thread and returns its result to the awaiting task.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            pool.submit { continuation.resume(with: Result { try body() }) }
        }
    }
}
