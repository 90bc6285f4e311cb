import OnboardMetricsSDK

extension HTTPTransport {
    /// ``flush()`` until it succeeds, at most `attempts` times, `pause` apart: a failed attempt (a
    /// request that timed out on a loaded machine) leaves the events queued for the next one.
    /// - Returns: whether an attempt succeeded.
    func flush(attempts: Int, pause: Duration) async throws -> Bool {
        for attempt in 1...max(attempts, 1) {
            if await flush() { return true }
            if attempt < attempts { try await Task.sleep(for: pause) }
        }
        return false
    }
}
