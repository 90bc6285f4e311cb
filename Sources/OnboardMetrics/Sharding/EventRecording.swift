/// What the collector needs of a recorder: one ``EventRecorder``, or a ``ShardedEventRecorder``
/// that routes each event to its shard's recorder.
public protocol EventRecording: EventSink {
    /// Returns once every event recorded before the call is committed, or durably spooled.
    /// - Returns: `true` when everything is committed, `false` when some of it waits in a spool.
    @discardableResult
    func flush() async -> Bool
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
