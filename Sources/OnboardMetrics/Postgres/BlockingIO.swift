import Dispatch

/// Runs blocking work (libpq calls, process launches) on threads of its own, so it never
/// occupies Swift's cooperative thread pool.
package enum BlockingIO {
    private static let queue = DispatchQueue(label: "onboardmetrics.blocking-io", attributes: .concurrent)

    /// Runs `body` on a blocking-work thread and returns its result to the awaiting task.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
