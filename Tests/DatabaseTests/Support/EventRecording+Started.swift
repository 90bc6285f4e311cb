@testable import OnboardMetricsStore

extension EventRecording {
    /// The recorder with its writers running in a task of their own, which ``shutdown()`` ends:
    /// for tests that record, flush and shut down in their own order (code uses `withRunning`).
    func started() -> Self {
        Task { try await run() }
        return self
    }
}
