import Foundation
import OnboardMetricsSDK

/// A clock a test moves by hand, to give ``OnboardingSession`` (its `clock` parameter) and
/// ``HTTPTransport`` (``HTTPTransport/Configuration/clock``) times that are known in advance.
public final class ManualClock: Sendable {
    private let current: LockedBox<Date>

    /// A clock at `start` (default 2026-01-01T00:00:00Z).
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) { current = LockedBox(start) }

    /// The time now.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// The clock as the closure the SDK takes.
    public var closure: @Sendable () -> Date { { [self] in now } }
}
