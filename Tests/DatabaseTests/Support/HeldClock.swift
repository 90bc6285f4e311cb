import Foundation

/// A clock for the collector that stands still for its first `reads` reads, then follows the
/// wall: what the server does in those first requests does not depend on how fast the machine is.
final class HeldClock: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    private let start: Date

    init(start: Date = Date(), reads: Int) {
        self.start = start
        left = reads
    }

    func read() -> Date {
        lock.withLock {
            guard left > 0 else { return Date() }
            left -= 1
            return start
        }
    }
}
