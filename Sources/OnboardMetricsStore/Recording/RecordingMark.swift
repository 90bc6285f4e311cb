/// The events one caller recorded, so that it can wait for those alone
/// (``EventRecording/flush(_:)``) rather than for everything recorded before it.
///
/// A server answering each request once its events are committed needs this: with several
/// writers, a request whose batch committed would otherwise wait for another writer's earlier,
/// longer batch, and the connections waiting on it leave the cores idle (BENCHMARKS.md, ninth round).
public struct RecordingMark: Sendable, Hashable {
    /// For each recorder marked (a shard's position, 0 without shards), the ordinals from its first
    /// event marked to its last. Other callers' events recorded in between are waited for too: a
    /// range, not a set, keeps marking free of allocations per event.
    private(set) var ranges: [Recorded] = []

    struct Recorded: Sendable, Hashable {
        var recorder: Int
        var ordinals: Range<Int>
    }

    /// An empty mark.
    public init() {}

    /// Whether no event was marked.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Notes that the recorder at position `recorder` numbered an event `ordinal`.
    mutating func note(_ ordinal: Int, recorder: Int) {
        for index in ranges.indices where ranges[index].recorder == recorder {
            let ordinals = ranges[index].ordinals
            ranges[index].ordinals = min(ordinals.lowerBound, ordinal)..<max(ordinals.upperBound, ordinal + 1)
            return
        }
        ranges.append(Recorded(recorder: recorder, ordinals: ordinal..<(ordinal + 1)))
    }

    /// The ordinals marked for the recorder at position `recorder`, if any.
    func ordinals(of recorder: Int) -> Range<Int>? {
        ranges.first { $0.recorder == recorder }?.ordinals
    }
}
