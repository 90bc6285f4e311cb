extension Quantiles {
    /// The `q`-quantiles (each 0...1) of `values`, in the order asked; all `nil` for an empty
    /// sample. The same values as ``quantile(sorted:_:)`` after sorting, found without sorting:
    /// type 7 interpolates between two order statistics, and those are selected in place on a
    /// copy (Hoare's selection with three-way partitions, linear on average).
    ///
    /// Why not sort: a report's last step summarizes every step's durations, millions of them at
    /// 10M events, after the read has ended; sorting them was about a second of a 13.5 s report
    /// in which nothing else ran (BENCHMARKS.md, issue 16).
    public static func quantiles(_ values: [Double], _ qs: [Double]) -> [Double?] {
        var work = values
        return quantiles(of: &work, qs) { $0 }
    }

    /// ``quantiles(_:_:)`` of `work`'s values mapped by `value`, selected on `work` itself (in
    /// place): `value` must not decrease (then the mapped values' order statistics are the
    /// order statistics' mapped values), so durations are selected as their 4-byte integers and
    /// only the few selected become seconds.
    static func quantiles<Value: Comparable>(
        of work: inout [Value], _ qs: [Double], value: (Value) -> Double
    ) -> [Double?] {
        guard !work.isEmpty else { return qs.map { _ in nil } }
        let ranks = type7Ranks(qs, count: work.count)
        work.withUnsafeMutableBufferPointer { buffer in
            // Once rank r is in place, everything after it is at least as large: the next rank is
            // selected from there on.
            var start = 0
            for rank in ranks {
                if rank == start, start > 0 {
                    // The rank just after one in place (type 7's upper neighbour): the smallest
                    // of the rest, found in one pass rather than by partitions.
                    var smallest = rank
                    for index in (rank + 1)..<buffer.count where buffer[index] < buffer[smallest] { smallest = index }
                    buffer.swapAt(rank, smallest)
                } else {
                    select(rank, in: buffer, from: start)
                }
                start = rank + 1
            }
        }
        return type7(qs, count: work.count) { value(work[$0]) }
    }

    /// ``quantiles(of:_:value:)`` of 4-byte values, without moving them: one pass counts the
    /// values by their top 16 bits, which tells the group (of 65,536) each rank asked falls in and
    /// its rank there; a second pass copies those groups' values out, and the ranks are selected
    /// among them. The same order statistics, so the same quantiles to the bit.
    ///
    /// Why: a funnel report summarizes each step's durations (microseconds as `UInt32`) after its
    /// read has ended, and selecting in place, four ranks over a copy, was 6 % of a warm report's
    /// CPU at 1.8M events, and the two passes about an eighth of that (`perf record`, BENCHMARKS.md).
    /// Below `Self.countingFrom` values the copy and selection are cheaper than the counts.
    static func quantiles(
        ofUInt32 values: [UInt32], _ qs: [Double], value: (UInt32) -> Double
    ) -> [Double?] {
        guard values.count >= countingFrom else {
            var work = values
            return quantiles(of: &work, qs, value: value)
        }
        let ranks = type7Ranks(qs, count: values.count)
        // Each rank's group, and how many values lie in the groups below it.
        var groups: [(group: Int, below: Int)] = []
        var counts = [Int](repeating: 0, count: 1 << 16)
        counts.withUnsafeMutableBufferPointer { counts in
            for value in values { counts[Int(value >> 16)] += 1 }
            var below = 0
            var next = 0
            for group in 0..<counts.count where next < ranks.count {
                let through = below + counts[group]
                while next < ranks.count, ranks[next] < through {
                    groups.append((group, below))
                    next += 1
                }
                below = through
            }
        }
        // The values of each distinct group (two for each q at most), in one pass.
        let distinct = Array(Set(groups.map(\.group))).sorted()
        guard distinct.count <= Int(Int8.max) else {
            var work = values
            return quantiles(of: &work, qs, value: value)
        }
        var members = distinct.map { group -> [UInt32] in
            var values: [UInt32] = []
            values.reserveCapacity(counts[group])
            return values
        }
        // Each group's place in `members`, or -1.
        var member = [Int8](repeating: -1, count: 1 << 16)
        for (index, group) in distinct.enumerated() { member[group] = Int8(index) }
        member.withUnsafeBufferPointer { member in
            for value in values {
                let index = member[Int(value >> 16)]
                if index >= 0 { members[Int(index)].append(value) }
            }
        }
        var statistic: [Int: UInt32] = [:]
        for (rank, place) in zip(ranks, groups) {
            guard let index = distinct.firstIndex(of: place.group) else { continue }
            members[index].withUnsafeMutableBufferPointer { buffer in
                select(rank - place.below, in: buffer, from: 0)
                statistic[rank] = buffer[rank - place.below]
            }
        }
        return type7(qs, count: values.count) { rank in statistic[rank].map(value) }
    }

    /// The order statistics type 7 needs for `qs` among `count` values (each q's lower one and
    /// the next), ascending.
    private static func type7Ranks(_ qs: [Double], count: Int) -> [Int] {
        var ranks = Set<Int>()
        for q in qs {
            let low = lowerRank(q, count: count)
            ranks.insert(low)
            ranks.insert(min(low + 1, count - 1))
        }
        return ranks.sorted()
    }

    @inline(__always)
    private static func lowerRank(_ q: Double, count: Int) -> Int {
        let last = count - 1
        return max(0, min(last, Int((q * Double(last)).rounded(.down))))
    }

    /// Type 7's quantiles from the order statistics `statistic` gives (nil when it has none).
    private static func type7(_ qs: [Double], count: Int, statistic: (Int) -> Double?) -> [Double?] {
        let last = count - 1
        return qs.map { q in
            let position = q * Double(last)
            let low = lowerRank(q, count: count)
            let high = min(low + 1, last)
            guard let lowValue = statistic(low), let highValue = statistic(high) else { return nil }
            return lowValue + (highValue - lowValue) * (position - Double(low))
        }
    }

    /// Where ``quantiles(ofUInt32:_:value:)`` starts counting rather than selecting in place.
    static let countingFrom = 8_192

    /// Puts the element of rank `k` (0-based, among `buffer[start...]`) at index `k`, the smaller
    /// ones before it and the larger after it. Partitions stop being tried after a budget of
    /// about three times log2 of the count, and the rest is sorted: a sample made to defeat the
    /// median-of-three pivot costs no more than a sort.
    private static func select<Value: Comparable>(
        _ k: Int, in buffer: UnsafeMutableBufferPointer<Value>, from start: Int
    ) {
        var low = start
        var high = buffer.count - 1
        var budget = 3 * (Int.bitWidth - buffer.count.leadingZeroBitCount) + 8
        while high > low {
            guard budget > 0 else {
                var rest = UnsafeMutableBufferPointer(rebasing: buffer[low...high])
                rest.sort()
                return
            }
            budget -= 1
            let a = buffer[low]
            let b = buffer[low + (high - low) / 2]
            let c = buffer[high]
            let pivot = max(min(a, b), min(max(a, b), c))
            // Dijkstra's three-way partition: [low, less) < pivot, [less, index) == pivot,
            // (greater, high] > pivot. Many equal durations (whole seconds) fall in the middle.
            var less = low
            var index = low
            var greater = high
            while index <= greater {
                let value = buffer[index]
                if value < pivot {
                    buffer.swapAt(less, index)
                    less += 1
                    index += 1
                } else if value > pivot {
                    buffer.swapAt(index, greater)
                    greater -= 1
                } else {
                    index += 1
                }
            }
            if k < less {
                high = less - 1
            } else if k > greater {
                low = greater + 1
            } else {
                return
            }
        }
    }
}
