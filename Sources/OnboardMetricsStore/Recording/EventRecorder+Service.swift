import ServiceLifecycle

/// The recorder as a service of a `ServiceGroup` (`funnel serve`): it records while the group runs
/// and, on graceful shutdown — after the services listed after it, such as the HTTP server, have
/// stopped and answered their requests — flushes what it holds and stops.
extension EventRecorder: Service {
    public func run() async throws {
        // Cancellation (another service failed) also ends the wait: flush either way.
        try? await gracefulShutdown()
        await shutdown()
    }
}
