import Foundation

/// Runs blocking work (libpq calls, process launches, waits) on a thread of its own per call, so
/// it never occupies Swift's cooperative thread pool.
///
/// Not on a Dispatch queue: on Linux, Dispatch's worker threads are the pool Swift's async tasks
/// run on too, and it grows only slowly past the number of cores, so a few blocked workers can
/// stall every task of the process (seen in the test suite: parallel suites waiting on
/// processes and databases hung). The calls are coarse (a query, a COPY, a whole file), so a
/// thread's start, some tens of microseconds, is small beside them.
package enum BlockingIO {
    /// Runs `body` on a new thread and returns its result to the awaiting task.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "onboardmetrics.blocking-io"
            thread.start()
        }
    }
}
