import Foundation
import OnboardMetricsReader

/// An event as the chain search needs it: 24 bytes, so a user's events stay cheap to hold.
struct AdHocEvent: Sendable, Hashable {
    var time: Int64
    var mask: UInt64
    var seq: Int32
    /// Lowest matched step index, -1 for none: orders a tie for the any-order search (chains
    /// regroup ties themselves).
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
    ///   order; they are put in (time, seq) order and ties taken as ``AdHocFunnel`` describes.
    /// - Returns: the depth and the times of the reported chain.
    public func furthestStep(events: [RecordedEvent]) -> Reach {
        var compact = compactEvents(events)
        return reach(&compact)
    }

    /// The events the chain search needs: all of them in strict order (unmatched ones break
    /// chains), only matched ones otherwise.
    func compactEvents(_ events: [RecordedEvent]) -> [AdHocEvent] {
        var compact: [AdHocEvent] = []
        compactEvents(events, into: &compact)
        return compact
    }

    /// ``compactEvents(_:)`` into `compact` (emptied first, its storage kept: an aggregator reuses
    /// one buffer for every session).
    func compactEvents(_ events: [RecordedEvent], into compact: inout [AdHocEvent]) {
        compact.removeAll(keepingCapacity: true)
        compact.reserveCapacity(order == .strict ? events.count : 16)
        // By index: `for event in events` copied each event (retaining its strings and properties).
        for index in events.indices {
            let mask = matcher.mask(in: events, at: index)
            if keeps(mask: mask) {
                compact.append(AdHocEvent(time: events[index].time, mask: mask, seq: events[index].seq))
            }
        }
    }

    /// Whether the chain search needs an event matching `mask`'s steps.
    @inline(__always)
    func keeps(mask: UInt64) -> Bool { mask != 0 || order == .strict }

    /// Sorts a unit's events (stably, so equal keys keep the order they were gathered in) and
    /// finds its reach.
    func reach(_ events: inout [AdHocEvent]) -> Reach {
        var buffers = ChainBuffers()
        return reach(&events, buffers: &buffers)
    }

    /// ``reach(_:)`` with the chains' buffers of an earlier session, reused (an aggregator keeps one).
    func reach(_ events: inout [AdHocEvent], buffers: inout ChainBuffers) -> Reach {
        guard events.contains(where: { $0.mask != 0 }) else { return Reach(depth: 0, times: []) }
        // A session's events come in (time, seq) order, so usually nothing moves: check first.
        let ordered = zip(events, events.dropFirst()).allSatisfy {
            ($0.time, $0.rank, $0.seq) <= ($1.time, $1.rank, $1.seq)
        }
        if !ordered {
            let sorted = events.enumerated().sorted {
                ($0.element.time, $0.element.rank, $0.element.seq, $0.offset)
                    < ($1.element.time, $1.element.rank, $1.element.seq, $1.offset)
            }
            events = sorted.map { $0.element }
        }
        switch order {
        case .ordered, .strict: return chainReach(events, buffers: &buffers)
        case .any: return anyOrderReach(events)
        }
    }

    /// What ``chainReach(_:buffers:)`` allocates, kept between sessions.
    struct ChainBuffers: Sendable {
        fileprivate var state = ChainState()
        fileprivate var entries: [(step: Int, event: Int32)] = []
    }

    /// One partial chain: its start, its last node in the session's ``ChainNodes`` (each node one
    /// step's time and the event that filled it, by position in the unit's sorted events, pointing
    /// at the step before), and how many steps it reached. The nodes say which events filled it,
    /// so a tie group never uses one event twice.
    fileprivate struct Chain {
        var start: Int64
        var tail: Int32
        var count: Int
    }

    /// The nodes of every chain of one session, appended to and never changed: extending a chain
    /// is one node, not two copied arrays (the copies were most of an ad-hoc funnel's time).
    fileprivate struct ChainNodes {
        var times: [Int64] = []
        var events: [Int32] = []
        var parents: [Int32] = []

        mutating func append(time: Int64, event: Int32, parent: Int32) -> Int32 {
            times.append(time)
            events.append(event)
            parents.append(parent)
            return Int32(times.count - 1)
        }

        func contains(_ event: Int32, in chain: Chain) -> Bool {
            var node = chain.tail
            while node >= 0 {
                if events[Int(node)] == event { return true }
                node = parents[Int(node)]
            }
            return false
        }

        /// Whether `chain`'s events, in order, are `longer`'s first ones.
        func isPrefix(_ chain: Chain, of longer: Chain) -> Bool {
            guard chain.count <= longer.count else { return false }
            var node = longer.tail
            for _ in 0..<(longer.count - chain.count) { node = parents[Int(node)] }
            var other = chain.tail
            while other >= 0 {
                if events[Int(node)] != events[Int(other)] { return false }
                node = parents[Int(node)]
                other = parents[Int(other)]
            }
            return true
        }

        func times(of chain: Chain) -> [Int64] {
            var times = [Int64](repeating: 0, count: chain.count)
            var node = chain.tail
            for index in stride(from: chain.count - 1, through: 0, by: -1) {
                times[index] = self.times[Int(node)]
                node = parents[Int(node)]
            }
            return times
        }

        func lastTime(of chain: Chain) -> Int64 { times[Int(chain.tail)] }
    }

    /// Ordered and strict chains, by PostHog's funnel rules (its `aggregate_funnel` UDF) on top of
    /// ClickHouse's dynamic programme: for each step, keep the chain that reached it with the
    /// latest start (it dominates: it can extend wherever an earlier-started one can).
    ///
    /// Events are taken one instant at a time. The events of an instant are expanded into one
    /// entry per (event, matched step), taken in step order and then in event order, as PostHog
    /// expands ties; an entry extends a chain only if the chain does not already hold its event,
    /// so one event fills at most one step of a chain. Ten steps over four event names, all
    /// logged at one instant, thus convert through all ten. Strict order treats an instant as one
    /// move: afterwards only the chains it started or extended survive, so an instant whose events
    /// match nothing ends every chain, while an unmatched event tied with matched ones does not
    /// come between them. (PostHog leaves strict ties undefined; entry-by-entry resets would let
    /// the order of equal entries decide.)
    private func chainReach(_ events: [AdHocEvent], buffers: inout ChainBuffers) -> Reach {
        buffers.state.reset(stepCount: steps.count, strict: order == .strict, windowMicroseconds: windowMicroseconds)
        var groupStart = 0
        while groupStart < events.count {
            let time = events[groupStart].time
            var groupEnd = groupStart + 1
            while groupEnd < events.count, events[groupEnd].time == time { groupEnd += 1 }
            buffers.entries.removeAll(keepingCapacity: true)
            for index in groupStart..<groupEnd {
                var bits = events[index].mask
                while bits != 0 {
                    buffers.entries.append((bits.trailingZeroBitCount, Int32(index)))
                    bits &= bits - 1
                }
            }
            if groupEnd - groupStart > 1 { buffers.entries.sort { ($0.step, $0.event) < ($1.step, $1.event) } }
            var touched: UInt64 = 0
            buffers.state.startInstant()
            for entry in buffers.entries {
                if buffers.state.apply(step: entry.step, event: entry.event, time: time) {
                    touched |= UInt64(1) << UInt64(entry.step)
                }
            }
            if order == .strict { buffers.state.endStrictMove(touched: touched) }
            // Nothing can beat a complete chain.
            if buffers.state.best?.count == steps.count { break }
            groupStart = groupEnd
        }
        guard let best = buffers.state.best else { return Reach(depth: 0, times: []) }
        return Reach(depth: best.count, times: buffers.state.nodes.times(of: best))
    }

    /// The chains of one unit while its events are taken in order.
    fileprivate struct ChainState {
        var strict = false
        var windowMicroseconds: Int64 = 0
        var nodes = ChainNodes()
        var reached: [Chain?] = []
        /// `reached` as it was before this instant's events.
        var before: [Chain?] = []
        /// The first chain to reach the greatest depth so far.
        var best: Chain?

        /// As new, for a funnel of `stepCount` steps, keeping the storage.
        mutating func reset(stepCount: Int, strict: Bool, windowMicroseconds: Int64) {
            self.strict = strict
            self.windowMicroseconds = windowMicroseconds
            nodes.times.removeAll(keepingCapacity: true)
            nodes.events.removeAll(keepingCapacity: true)
            nodes.parents.removeAll(keepingCapacity: true)
            if reached.count != stepCount {
                reached = Array(repeating: nil, count: stepCount)
                before = reached
            } else {
                for index in reached.indices {
                    reached[index] = nil
                    before[index] = nil
                }
            }
            best = nil
        }

        /// Keeps the chains as they are before an instant's events (``apply(step:event:time:)``'s `before`).
        mutating func startInstant() {
            for index in reached.indices { before[index] = reached[index] }
        }

        /// Strict order after an instant: only chains it started or extended survive, each at the
        /// furthest step it reached (a chain the instant carried on to the next step no longer
        /// waits at the earlier one).
        mutating func endStrictMove(touched: UInt64) {
            let isTouched = { (step: Int) in touched & (UInt64(1) << UInt64(step)) != 0 }
            var keep = reached.indices.map(isTouched)
            for step in reached.indices.dropLast() where keep[step] && isTouched(step + 1) {
                if let chain = reached[step], let next = reached[step + 1], next.start == chain.start,
                    next.count == chain.count + 1, nodes.isPrefix(chain, of: next)
                {
                    keep[step] = false
                }
            }
            for step in reached.indices where !keep[step] { reached[step] = nil }
        }

        /// `chain` if `event` at `time` may extend it: within the window, and not already in it.
        func usable(_ chain: Chain?, event: Int32, time: Int64) -> Chain? {
            guard let chain, time - chain.start <= windowMicroseconds, !nodes.contains(event, in: chain) else {
                return nil
            }
            return chain
        }

        /// Takes one entry: `event` matched `step` at `time`. The entry extends the latest-started
        /// chain at the previous step that is within the window and does not hold the event — the
        /// one made at this instant, else the one from before it (`before`: a chain this very event
        /// started must not hide an older one it can extend: steps a, a and events a@0 a@1 reach
        /// 2). Returns whether it set that step's chain.
        mutating func apply(step: Int, event: Int32, time: Int64) -> Bool {
            let chain: Chain
            if step == 0 {
                // A chain already started at this instant is the same chain (PostHog keeps the first).
                if let current = reached[0], current.start == time { return true }
                chain = Chain(start: time, tail: nodes.append(time: time, event: event, parent: -1), count: 1)
            } else {
                guard
                    let previous = usable(reached[step - 1], event: event, time: time)
                        ?? usable(before[step - 1], event: event, time: time)
                else { return false }
                // Same or later start already here: that chain dominates, keep it — in strict order
                // only if it got here at this instant (an older one ends unless this instant extends it).
                if let current = reached[step], current.start >= previous.start,
                    !strict || nodes.lastTime(of: current) == time
                {
                    return nodes.lastTime(of: current) == time
                }
                chain = Chain(
                    start: previous.start, tail: nodes.append(time: time, event: event, parent: previous.tail),
                    count: previous.count + 1)
            }
            reached[step] = chain
            if chain.count > best?.count ?? 0 { best = chain }
            return true
        }
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
