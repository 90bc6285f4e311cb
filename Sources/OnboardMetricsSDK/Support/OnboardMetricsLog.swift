import Foundation

/// The SDK's debug log, off by default: turn it on while integrating to see what the SDK decides
/// (sessions started, resumed and closed as abandoned, identity changes, problems with its
/// files). Lines go to the handler you give, or to standard error.
///
/// ```swift
/// #if DEBUG
/// OnboardMetricsLog.enable()
/// #endif
/// ```
///
/// The transport has its own log (``HTTPTransport/Configuration/log``) for what it does with
/// batches.
public enum OnboardMetricsLog {
    private static let handler = LockedBox<(@Sendable (String) -> Void)?>(nil)

    /// Sends the SDK's debug lines to `handler` (default: standard error, prefixed
    /// `OnboardMetrics:`).
    public static func enable(
        _ handler: @escaping @Sendable (String) -> Void = { line in
            FileHandle.standardError.write(Data("OnboardMetrics: \(line)\n".utf8))
        }
    ) {
        self.handler.withLock { $0 = handler }
    }

    /// Turns the log off.
    public static func disable() { handler.withLock { $0 = nil } }

    /// Whether the log is on.
    public static var isEnabled: Bool { handler.withLock { $0 != nil } }

    /// Writes a line when the log is on (the text is not even made when it is off).
    package static func log(_ line: @autoclosure () -> String) {
        guard let handler = handler.withLock({ $0 }) else { return }
        handler(line())
    }
}
