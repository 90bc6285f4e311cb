import ServiceLifecycle

/// The recorder as a service of a `ServiceGroup` (`funnel serve`): its writers run while the
/// group runs and, on graceful shutdown — after the services listed after it, such as the HTTP
/// server, have stopped and answered their requests — flush what the recorder holds and stop.
extension EventRecorder: Service {
    /// Starts the writers and returns once they have stopped: after ``shutdown()``, a graceful
    /// shutdown of the group, or the task's cancellation (each of which flushes first).
    public func run() async throws {
        startWriters()
        await withTaskCancellationOrGracefulShutdownHandler {
            await waitUntilStopped()
        } onCancelOrGracefulShutdown: {
            self.beginShutdown()
        }
    }
}
