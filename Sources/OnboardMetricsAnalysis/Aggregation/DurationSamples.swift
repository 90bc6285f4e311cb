/// Durations as a replay measures them, whole microseconds between two events, in the order they
/// were added: 4 bytes each up to 71 minutes, where the seconds as `Double`s took 8 (84 MB of the
/// step durations a funnel report held at 10M events, heaptrack). Read back as exactly the seconds
/// the replay computed before, `Double(microseconds) / 1_000_000`, in the same order.
struct DurationSamples: Sendable, Hashable {
    /// The durations that fit below ``escape``; ``escape`` stands for the next of `long`.
    private var short: [UInt32] = []
    /// The others (negative, or 71 minutes and more), in order.
    private var long: [Int64] = []

    private static let escape = UInt32.max

    init() {}

    /// How many durations.
    var count: Int { short.count }

    /// Adds a duration of `microseconds`.
    mutating func append(microseconds: Int64) {
        if microseconds >= 0, microseconds < Int64(Self.escape) {
            short.append(UInt32(microseconds))
        } else {
            short.append(Self.escape)
            long.append(microseconds)
        }
    }

    /// Adds `other`'s durations after these.
    mutating func append(contentsOf other: DurationSamples) {
        short += other.short
        long += other.long
    }

    /// The durations in seconds, in the order they were added.
    var seconds: [Double] {
        var seconds: [Double] = []
        seconds.reserveCapacity(short.count)
        var next = 0
        for value in short {
            if value == Self.escape {
                seconds.append(Double(long[next]) / 1_000_000)
                next += 1
            } else {
                seconds.append(Double(Int64(value)) / 1_000_000)
            }
        }
        return seconds
    }

    /// ``DurationSummary/init(_:)`` of ``seconds``, the same values: selected on the
    /// microseconds (half the bytes, and no conversion of each) when all fit in `short`.
    var summary: DurationSummary {
        guard long.isEmpty else { return DurationSummary(seconds) }
        return DurationSummary(
            count: short.count,
            quantiles: Quantiles.quantiles(ofUInt32: short, DurationSummary.quantiles) {
                Double(Int64($0)) / 1_000_000
            })
    }
}
