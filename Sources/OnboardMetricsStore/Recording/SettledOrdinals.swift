/// Which events of a recorder are settled (committed, duplicate, refused, spooled or dropped), by
/// ordinal — the order ``EventRecorder/record(_:)`` numbered them in.
///
/// Writers finish batches out of order, and an event requeued after a failure may settle after
/// later ones, so the set is every ordinal below ``settledBelow`` plus a few disjoint runs above
/// it, merged as they join. A flush waits for a range of ordinals to be inside the set.
struct SettledOrdinals: Sendable, Hashable {
    /// Every ordinal below this one is settled.
    private(set) var settledBelow = 0
    /// Settled runs past `settledBelow`: sorted, disjoint, none touching `settledBelow`.
    private(set) var runs: [Range<Int>] = []

    /// Adds `ordinals` (any order, repeats allowed) to the settled ones.
    mutating func insert(_ ordinals: [Int]) {
        guard !ordinals.isEmpty else { return }
        let sorted = ordinals.sorted()
        var runStart = sorted[0]
        var runEnd = runStart + 1
        for ordinal in sorted.dropFirst() {
            if ordinal <= runEnd {
                runEnd = max(runEnd, ordinal + 1)
            } else {
                runs.append(runStart..<runEnd)
                runStart = ordinal
                runEnd = ordinal + 1
            }
        }
        runs.append(runStart..<runEnd)
        runs.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for range in runs {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        while let first = merged.first, first.lowerBound <= settledBelow {
            settledBelow = max(settledBelow, first.upperBound)
            merged.removeFirst()
        }
        runs = merged
    }

    /// Whether every ordinal of `range` is settled.
    func contains(_ range: Range<Int>) -> Bool {
        let start = max(range.lowerBound, settledBelow)
        guard start < range.upperBound else { return true }
        // The runs are merged: the rest of the range must lie inside one of them.
        return runs.contains { $0.lowerBound <= start && range.upperBound <= $0.upperBound }
    }
}
