/// What the platform lends an app that leaves the foreground: a little time to finish work, asked
/// for with ``begin(_:expiration:)`` and given back with ``end(_:)`` (UIKit's
/// `beginBackgroundTask` / `endBackgroundTask`). Tests and platforms without such an assertion
/// use ``ImmediateBackgroundTasks``.
public protocol BackgroundTaskProvider: Sendable {
    /// Asks for background time; `expiration` runs if the platform takes it back first.
    /// - Returns: a token for ``end(_:)``.
    func begin(_ name: String, expiration: @escaping @Sendable () -> Void) -> Int
    /// Gives the time back.
    func end(_ token: Int)
}

/// No background assertion (Linux, macOS, tests): the work simply runs.
public struct ImmediateBackgroundTasks: BackgroundTaskProvider {
    public init() {}
    public func begin(_ name: String, expiration: @escaping @Sendable () -> Void) -> Int { 0 }
    public func end(_ token: Int) {}
}

#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// UIKit's background task assertion. Not compiled on this project's CI (Linux only).
    @available(iOS 16, tvOS 16, visionOS 1, *)
    public struct UIKitBackgroundTasks: BackgroundTaskProvider {
        public init() {}

        public func begin(_ name: String, expiration: @escaping @Sendable () -> Void) -> Int {
            MainActor.assumeIsolated {
                UIApplication.shared.beginBackgroundTask(withName: name, expirationHandler: expiration).rawValue
            }
        }

        public func end(_ token: Int) {
            Task { @MainActor in UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: token)) }
        }
    }
#endif
