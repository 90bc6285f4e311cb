import OnboardMetricsSDK
import ServiceLifecycle

/// What the collector needs of a recorder: one ``EventRecorder``, or a ``ShardedEventRecorder``
/// that routes each event to its shard's recorder. A `Service`: its writers run in ``run()``.
public protocol EventRecording: EventSink, Service {
    /// Returns once every event recorded before the call is committed, or durably spooled.
    /// - Returns: `true` when everything is committed, `false` when some of it waits in a spool.
    @discardableResult
    func flush() async -> Bool
    /// Accepts an event like `record(_:)` and notes it in `mark`, for ``flush(_:)``.
    func record(_ event: Event, marking mark: inout RecordingMark) throws
    /// Returns once the events noted in `mark` are committed, or durably spooled, without waiting
    /// for the events other callers recorded before them.
    /// - Returns: `true` when they are committed and no spool holds events, `false` otherwise.
    @discardableResult
    func flush(_ mark: RecordingMark) async -> Bool
    /// Whether new events should be refused rather than acknowledged: the database is unreachable
    /// and the spool is at its cap (on any shard), so they could be kept in memory only.
    var isRefusingEvents: Bool { get }
    /// A snapshot of the counters (summed over shards).
    var counters: EventRecorder.Counters { get }
    /// Flushes, stops the writers (starting them first if ``run()`` was never called) and
    /// returns the final counters. Later records fail.
    @discardableResult
    func shutdown() async -> EventRecorder.Counters
}

extension EventRecording {
    /// Runs the recorder (``run()``) while `body` records, then shuts it down — for commands,
    /// scripts and tests that record outside a `ServiceGroup`.
    /// - Returns: what `body` returned, and the final counters.
    /// - Throws: what `body` threw (the recorder is shut down first, what it held flushed).
    public func withRunning<Result: Sendable>(_ body: () async throws -> Result) async throws -> (
        Result, EventRecorder.Counters
    ) {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            let counters = await shutdown()
            try await group.waitForAll()
            return (try outcome.get(), counters)
        }
    }
}

extension EventRecorder: EventRecording {}

extension EventRecorder.Counters {
    /// The sum of two recorders' counters.
    static func + (left: Self, right: Self) -> Self {
        var sum = left
        sum.recorded += right.recorded
        sum.committed += right.committed
        sum.duplicates += right.duplicates
        sum.retried += right.retried
        sum.spooled += right.spooled
        sum.dropped += right.dropped
        sum.rejected += right.rejected
        return sum
    }
}
