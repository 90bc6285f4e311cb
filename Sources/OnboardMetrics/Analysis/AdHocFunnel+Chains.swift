import Foundation

/// An event as the chain search needs it: 24 bytes, so a user's events stay cheap to hold.
struct AdHocEvent: Sendable, Hashable {
    var time: Int64
    var mask: UInt64
    var seq: Int32
    /// Lowest matched step index, -1 for none: the tie-breaker after time.
    var rank: Int16

    init(time: Int64, mask: UInt64, seq: Int) {
        self.time = time
        self.mask = mask
        self.seq = Int32(clamping: seq)
        self.rank = mask == 0 ? -1 : Int16(mask.trailingZeroBitCount)
    }
}

extension AdHocFunnel {
    /// How far one unit's events get through the funnel.
    /// - Parameter events: all events of the unit (a session, or every session of a user), in any
    ///   order; they are put in (time, rank, seq) order, see ``AdHocFunnel``.
    /// - Returns: the depth and the times of the reported chain.
    public func furthestStep(events: [RecordedEvent]) -> Reach {
        var compact = compactEvents(events)
        return reach(&compact)
    }

    /// The events the chain search needs: all of them in strict order (unmatched ones break
    /// chains), only matched ones otherwise.
    func compactEvents(_ events: [RecordedEvent]) -> [AdHocEvent] {
        var compact: [AdHocEvent] = []
        compact.reserveCapacity(order == .strict ? events.count : 16)
        for event in events {
            let mask = matcher.mask(event)
            if mask != 0 || order == .strict {
                compact.append(AdHocEvent(time: event.time, mask: mask, seq: event.seq))
            }
        }
        return compact
    }

    /// Sorts a unit's events (stably, so equal keys keep the order they were gathered in) and
    /// finds its reach.
    func reach(_ events: inout [AdHocEvent]) -> Reach {
        guard events.contains(where: { $0.mask != 0 }) else { return Reach(depth: 0, times: []) }
        let sorted = events.enumerated().sorted {
            ($0.element.time, $0.element.rank, $0.element.seq, $0.offset)
                < ($1.element.time, $1.element.rank, $1.element.seq, $1.offset)
        }
        events = sorted.map(\.element)
        switch order {
        case .ordered, .strict: return chainReach(events)
        case .any: return anyOrderReach(events)
        }
    }

    /// One partial chain: its start and the times of the steps it reached.
    private struct Chain {
        var start: Int64
        var times: [Int64]
    }

    /// Ordered and strict chains, by ClickHouse's dynamic programme: for each step, keep the
    /// chain that reached it with the latest start (it dominates: it can extend wherever an
    /// earlier-started one can). Strict order also drops every chain an event does not extend.
    private func chainReach(_ events: [AdHocEvent]) -> Reach {
        let count = steps.count
        var reached = [Chain?](repeating: nil, count: count)
        var best: [Int64] = []
        for event in events {
            var extended = [Chain?](repeating: nil, count: order == .strict ? count : 0)
            // Highest step first, so one event never fills two consecutive steps of a chain.
            var bits = event.mask
            while bits != 0 {
                let step = 63 - bits.leadingZeroBitCount
                bits &= ~(UInt64(1) << UInt64(step))
                let chain: Chain
                if step == 0 {
                    chain = Chain(start: event.time, times: [event.time])
                } else {
                    guard let previous = reached[step - 1], event.time - previous.start <= windowMicroseconds
                    else { continue }
                    // Same start already here: the chain reached this step earlier, keep that.
                    if order == .ordered, let current = reached[step], current.start >= previous.start { continue }
                    chain = Chain(start: previous.start, times: previous.times + [event.time])
                }
                if order == .strict { extended[step] = chain } else { reached[step] = chain }
                if chain.times.count > best.count { best = chain.times }
            }
            if order == .strict { reached = extended }
            if best.count == count, order == .ordered { break }  // nothing can beat a complete chain
        }
        return Reach(depth: best.count, times: best)
    }

    /// Any order: slide a window over the matched events, starting at each one, and count the
    /// distinct steps its events can fill (a maximum bipartite matching between steps and events,
    /// since an event may match several steps). The first window with the most steps is reported;
    /// its times are those of the earliest events of each kind the matching used.
    private func anyOrderReach(_ events: [AdHocEvent]) -> Reach {
        let matched = events.filter { $0.mask != 0 }
        var counts: [UInt64: Int] = [:]
        var end = 0
        var bestDepth = 0
        var bestStart = 0
        var bestUse: [UInt64: Int] = [:]
        for start in matched.indices {
            while end < matched.count, matched[end].time - matched[start].time <= windowMicroseconds {
                counts[matched[end].mask, default: 0] += 1
                end += 1
            }
            let use = Self.maximumMatching(counts, stepCount: steps.count)
            let depth = use.values.reduce(0, +)
            if depth > bestDepth {
                bestDepth = depth
                bestStart = start
                bestUse = use
                if depth == steps.count { break }
            }
            counts[matched[start].mask, default: 0] -= 1
            if counts[matched[start].mask] == 0 { counts[matched[start].mask] = nil }
        }
        var times: [Int64] = []
        var remaining = bestUse
        for event in matched[bestStart...] where remaining[event.mask, default: 0] > 0 {
            remaining[event.mask, default: 0] -= 1
            times.append(event.time)
            if times.count == bestDepth { break }
        }
        return Reach(depth: bestDepth, times: times)
    }

    /// The most steps that events of the given kinds (bit sets with counts) can fill, one step per
    /// event: Kuhn's augmenting paths over event kinds with capacities. Returns how many events of
    /// each kind are used.
    static func maximumMatching(_ counts: [UInt64: Int], stepCount: Int) -> [UInt64: Int] {
        let kinds = counts.keys.sorted()
        // Fast path, and the common case: every event matches one step.
        if kinds.allSatisfy({ $0.nonzeroBitCount == 1 }) {
            return Dictionary(uniqueKeysWithValues: kinds.map { ($0, 1) })
        }
        let capacity = kinds.map { min(counts[$0] ?? 0, stepCount) }
        var assigned = [[Int]](repeating: [], count: kinds.count)

        func augment(_ step: Int, _ visited: inout [Bool]) -> Bool {
            for (kind, mask) in kinds.enumerated() where mask & (UInt64(1) << UInt64(step)) != 0 && !visited[kind] {
                visited[kind] = true
                if assigned[kind].count < capacity[kind] {
                    assigned[kind].append(step)
                    return true
                }
                // Full: try to move one of this kind's steps to another kind.
                for slot in assigned[kind].indices {
                    if augment(assigned[kind][slot], &visited) {
                        assigned[kind][slot] = step
                        return true
                    }
                }
            }
            return false
        }

        for step in 0..<stepCount {
            var visited = [Bool](repeating: false, count: kinds.count)
            _ = augment(step, &visited)
        }
        var use: [UInt64: Int] = [:]
        for (kind, mask) in kinds.enumerated() where !assigned[kind].isEmpty { use[mask] = assigned[kind].count }
        return use
    }
}
