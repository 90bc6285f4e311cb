import OnboardMetricsSDK

/// What the collector needs of a recorder: one ``EventRecorder``, or a ``ShardedEventRecorder``
/// that routes each event to its shard's recorder.
public protocol EventRecording: EventSink {
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
    /// A snapshot of the counters (summed over shards).
    var counters: EventRecorder.Counters { get }
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
