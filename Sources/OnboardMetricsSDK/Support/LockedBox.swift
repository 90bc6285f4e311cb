import Foundation

/// A value behind a lock: the one way the SDK guards state that several threads or tasks share
/// (the transport's state machine, a session's navigator, the testing product's sinks and clocks).
///
/// The value is reached only inside ``withLock(_:)``, so it can be neither read without the lock
/// nor kept after it is released. The SDK runs where `Synchronization.Mutex` does not exist yet
/// (iOS 16, macOS 14), hence `NSLock`; the server targets use swift-nio's `NIOLockedValueBox`.
package final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // Unchecked: `value` is only touched while `lock` is held, and it is Sendable, so what a
    // caller takes out of ``withLock(_:)`` is safe to keep.
    private let lock = NSLock()
    private var value: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value with the lock held, and returns what it returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
