import NIOConcurrencyHelpers
import OnboardMetricsSDK

/// An ``EventRecorder``'s spool, shared by its writers: writer 0 appends during an outage while
/// another writer may drain, so every call on the spool's files takes the lock.
final class RecorderSpool: @unchecked Sendable {
    // Unchecked: wraps `Spool`'s file descriptors, touched only under `lock`.
    private let lock = NIOLock()
    private let spool: Spool

    init(_ spool: Spool) {
        self.spool = spool
    }

    var isEmpty: Bool { lock.withLock { spool.isEmpty } }

    /// Appends durably; returns the events dropped over the cap. - Throws: `RecorderError` `.spool`.
    func append(_ events: [Event]) throws -> Int { try lock.withLock { try spool.append(events) } }

    func sealActiveSegment() { lock.withLock { spool.sealActiveSegment() } }

    func sealedSegments() -> [String] { lock.withLock { spool.sealedSegments() } }

    /// The events of a sealed segment (torn or corrupt records are quarantined).
    func read(segment: String) -> [Event] { lock.withLock { spool.read(segment: segment).events } }

    func remove(segment: String) { lock.withLock { spool.remove(segment: segment) } }

    func close() { lock.withLock { spool.close() } }
}
