/// Sends what the transport holds when the app leaves the foreground, inside the background time
/// the platform lends (users who abandon onboarding and never come back are those whose last
/// events would otherwise stay on the phone).
///
/// Call ``appDidEnterBackground()`` from the app's lifecycle (SwiftUI: `scenePhase` becoming
/// `.background`; UIKit: `sceneDidEnterBackground`). It asks for background time, flushes the
/// transport — the waiting events go to its on-disk outbox, then to the collector — and gives the
/// time back when the flush ends or the platform takes the time back, whichever comes first.
/// Events already in the outbox are sent by the next launch if time runs out.
public final class BackgroundDelivery: Sendable {
    private let transport: HTTPTransport
    private let tasks: any BackgroundTaskProvider

    /// - Parameters:
    ///   - transport: the app's transport.
    ///   - tasks: the platform's background time (`UIKitBackgroundTasks()` on iOS, tvOS and
    ///     visionOS; ``ImmediateBackgroundTasks`` elsewhere).
    public init(transport: HTTPTransport, tasks: any BackgroundTaskProvider = ImmediateBackgroundTasks()) {
        self.transport = transport
        self.tasks = tasks
    }

    /// Starts the flush inside a background task.
    /// - Returns: the flush, whose value says whether every event recorded before the call was
    ///   settled by the server.
    @discardableResult
    public func appDidEnterBackground() -> Task<Bool, Never> {
        // The token is given back exactly once, by the flush's end or by the expiration: whoever
        // takes it out of the box first ends it (an expiration before `begin` returned finds
        // nothing, and the flush's end gives it back).
        let token = LockedBox<Int?>(nil)
        let tasks = tasks
        let end: @Sendable () -> Void = {
            if let taken = token.withLock({ held -> Int? in
                defer { held = nil }
                return held
            }) {
                tasks.end(taken)
            }
        }
        let begun = tasks.begin("onboardmetrics.flush", expiration: end)
        token.withLock { $0 = begun }
        let transport = transport
        return Task {
            let flushed = await transport.flush()
            end()
            return flushed
        }
    }
}
