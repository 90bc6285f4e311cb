import Foundation
import OnboardMetricsStatistics
import Testing

@testable import OnboardMetricsAnalysis

@Suite struct PackedUnitStoreTests {
    /// Every field of a state, times as bit patterns (NaN included), for comparing exactly.
    struct Fields: Equatable {
        var status: FunnelUnitState.Status
        var start: Int64
        var flags: [[Bool]]
        var microseconds: [[Int64]]
        var lastStep: Int?
        var breakdown: String?
        var origins: [[Int64]?]
        var lastStart: Int64?

        init(_ state: FunnelUnitState) {
            status = state.status
            start = state.start
            flags = [state.eligible, state.viewed, state.completed, state.skipped]
            microseconds = [state.microsecondsFromStart, state.microsecondsOnStep]
            lastStep = state.lastStep
            breakdown = state.breakdown
            origins = [state.fromStartOrigins, state.onStepOrigins]
            lastStart = state.lastStart
        }
    }

    /// A state with every field drawn at random: nil or not, NaN or a time (negative zero and
    /// the extremes included), a breakdown from a few values.
    static func randomState(steps: Int, using random: inout SplitMix64) -> FunnelUnitState {
        var state = FunnelUnitState(stepCount: steps)
        state.status = [.completed, .dropped, .inProgress][Int.random(in: 0..<3, using: &random)]
        state.start = Int64.random(in: Int64.min...Int64.max, using: &random)
        // Durations: none, zero, seconds to days, and the extremes a difference of two times can be.
        let times: [Int64] = [0, 1, 6_302_000, 86_400_500_000, -3_250_000, Int64.max, Int64.min + 1]
        for index in 0..<steps {
            state.eligible[index] = Bool.random(using: &random)
            state.viewed[index] = Bool.random(using: &random)
            state.completed[index] = Bool.random(using: &random)
            state.skipped[index] = Bool.random(using: &random)
            if Bool.random(using: &random) {
                state.microsecondsFromStart[index] = times.randomElement(using: &random) ?? 0
            }
            if Bool.random(using: &random) {
                state.microsecondsOnStep[index] = Int64.random(in: -1_000_000...86_400_000_000_000, using: &random)
            }
        }
        if steps > 0, Bool.random(using: &random) { state.lastStep = Int.random(in: 0..<steps, using: &random) }
        let breakdowns = ["ios", "android", "", "web"]
        if Bool.random(using: &random) { state.breakdown = breakdowns.randomElement(using: &random) }
        if Bool.random(using: &random) {
            state.fromStartOrigins = (0..<steps).map { _ in Int64.random(in: -1_000...1_000, using: &random) }
        }
        if Bool.random(using: &random) {
            state.onStepOrigins = (0..<steps).map { _ in Int64.random(in: Int64.min...Int64.max, using: &random) }
        }
        if Bool.random(using: &random) { state.lastStart = Int64.random(in: 0...1_000_000, using: &random) }
        return state
    }

    /// `units` kept, in order, each as its user's first, in a store of 4 KiB chunks (so that they
    /// cross chunks), then read back by user.
    static func readBack<Unit: PackableUnit>(_ units: [(user: String, unit: Unit)], stepCount: Int = 0)
        -> [String: Unit]
    {
        var store = PackedUnitStore<Unit>(stepCount: stepCount, chunkSize: 4_096)
        var scratch = Unit(stepCount: stepCount)
        for (user, unit) in units { store.merge(unit, user: user, scratch: &scratch) }
        var back: [String: Unit] = [:]
        store.forEach { back[$0] = $1 }
        return back
    }

    static func contents(of store: PackedUnitStore<FunnelUnitState>) -> [String: Fields] {
        var all: [String: Fields] = [:]
        store.forEach { all[$0] = Fields($1) }
        return all
    }

    @Test(arguments: [0, 1, 6, 8, 9, 70])
    func everyStateComesBackAsItWasStored(steps: Int) {
        var random = SplitMix64(seed: UInt64(steps))
        let states = (0..<500).map { _ in Self.randomState(steps: steps, using: &random) }
        // Chunks of 4 KiB: the states fill several.
        var store = PackedUnitStore<FunnelUnitState>(stepCount: steps, chunkSize: 4_096)
        var scratch = FunnelUnitState(stepCount: steps)
        for (index, state) in states.enumerated() { store.merge(state, user: "user-\(index)", scratch: &scratch) }
        #expect(store.count == states.count)
        let stored = Self.contents(of: store)
        #expect(stored.count == states.count)
        for (index, state) in states.enumerated() { #expect(stored["user-\(index)"] == Fields(state)) }
    }

    @Test func aStateLargerThanAChunkIsKeptWhole() {
        var random = SplitMix64(seed: 7)
        // 40,000 steps with both origins: about 1.3 MB packed, more than a chunk.
        var state = Self.randomState(steps: 40_000, using: &random)
        state.fromStartOrigins = Array(repeating: 5, count: 40_000)
        state.onStepOrigins = Array(repeating: -5, count: 40_000)
        var store = PackedUnitStore<FunnelUnitState>(stepCount: 40_000)
        var scratch = FunnelUnitState(stepCount: 40_000)
        let small = Self.randomState(steps: 40_000, using: &random)
        store.merge(small, user: "before", scratch: &scratch)
        store.merge(state, user: "large", scratch: &scratch)
        store.merge(small, user: "after", scratch: &scratch)
        let stored = Self.contents(of: store)
        #expect(stored == ["before": Fields(small), "large": Fields(state), "after": Fields(small)])
    }

    @Test func aCorrelationTraceComesBackAsItWasStored() {
        var random = SplitMix64(seed: 11)
        let steps = 6
        var traces: [CorrelationTrace] = []
        for _ in 0..<500 {
            var trace = CorrelationTrace(stepCount: steps)
            trace.state = Self.randomState(steps: steps, using: &random)
            if Bool.random(using: &random) { trace.successTime = Int64.random(in: 0...Int64.max, using: &random) }
            let names = (0..<UInt32.random(in: 0...12, using: &random)).map { $0 * 3 }
            trace.seen = names.map {
                CorrelationTrace.Seen(name: $0, time: Int64.random(in: Int64.min...Int64.max, using: &random))
            }
            trace.context = (0..<UInt32.random(in: 0...5, using: &random)).map { UInt32.max - 5 + $0 }
            traces.append(trace)
        }
        let stored = Self.readBack(traces.enumerated().map { ("user-\($0)", $1) }, stepCount: steps)
        #expect(stored.count == traces.count)
        for (index, trace) in traces.enumerated() {
            let back = stored["user-\(index)"]
            #expect(back.map { Fields($0.state) } == Fields(trace.state))
            #expect(back?.successTime == trace.successTime)
            #expect(back?.seen == trace.seen)
            #expect(back?.context == trace.context)
        }
    }

    @Test func anExperimentRecordComesBackAsItWasStored() {
        var random = SplitMix64(seed: 23)
        let variants = ["", "control", "treatment-ü", "a,b\"c\u{0}"]
        var records: [ExperimentAggregator.UnitRecord] = []
        for metrics in [0, 1, 3, 9] {
            for _ in 0..<100 {
                var record = ExperimentAggregator.UnitRecord(
                    variant: variants.randomElement(using: &random) ?? "",
                    exposedAt: Int64.random(in: Int64.min...Int64.max, using: &random),
                    eligible: (0..<metrics).map { _ in Bool.random(using: &random) },
                    converted: (0..<metrics).map { _ in Bool.random(using: &random) })
                record.mixed = Bool.random(using: &random)
                records.append(record)
            }
            let part = records.suffix(100)
            let stored = Self.readBack(part.enumerated().map { ("user-\($0)", $1) }, stepCount: metrics)
            for (index, record) in part.enumerated() {
                let back = stored["user-\(index)"]
                #expect(back?.variant == record.variant && back?.exposedAt == record.exposedAt)
                #expect(back?.mixed == record.mixed && back?.outcomes == record.outcomes)
            }
        }
    }

    @Test func aUnitListUnitComesBackAsItWasStoredButForItsUserID() {
        var random = SplitMix64(seed: 5)
        let steps = 6
        var units: [UnitListAggregator.Unit] = []
        for index in 0..<300 {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            let unit = UnitListAggregator.Unit(
                state: Self.randomState(steps: steps, using: &random), userID: "user-\(index)",
                sessionID: UUID(
                    uuid: (
                        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                    )),
                start: Int64.random(in: Int64.min...Int64.max, using: &random),
                lastEvent: Int64.random(in: Int64.min...Int64.max, using: &random),
                sessions: Int.random(in: 1...1_000_000, using: &random))
            units.append(unit)
        }
        let stored = Self.readBack(units.map { ($0.userID, $0) }, stepCount: steps)
        for unit in units {
            let back = stored[unit.userID]
            #expect(back.map { Fields($0.state) } == Fields(unit.state))
            #expect(back?.sessionID == unit.sessionID && back?.start == unit.start)
            #expect(back?.lastEvent == unit.lastEvent && back?.sessions == unit.sessions)
            // The user id is the store's key, not packed.
            #expect(back?.userID == "")
        }
    }

    /// A paths person (events and onboardings after a drop) comes back exactly, extremes and
    /// `nil` last steps included, across 4 KiB chunks.
    @Test func aPathsPersonComesBackAsItWasStored() {
        var random = SplitMix64(seed: 11)
        let wide: [Int64] = [.min, .max, 0, -1, 1_790_000_000_000_000]
        var people: [(user: String, unit: PathAggregator.Person)] = []
        func time() -> Int64 {
            Bool.random(using: &random)
                ? wide[Int.random(in: 0..<wide.count, using: &random)] : Int64.random(in: .min ... .max, using: &random)
        }
        for index in 0..<300 {
            var person = PathAggregator.Person()
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let position = PathAggregator.Position(
                    time: time(), sessionStart: time(), seq: Int32.random(in: .min ... .max, using: &random))
                person.entries.append(
                    PathAggregator.Entry(position: position, label: UInt32.random(in: 0 ... .max, using: &random)))
            }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let outcome = FunnelOutcome(
                    status: [.completed, .dropped, .inProgress][Int.random(in: 0..<3, using: &random)], start: time(),
                    lastStep: Bool.random(using: &random) ? Int.random(in: -2...70, using: &random) : nil)
                let anchor = PathAggregator.Position(
                    time: time(), sessionStart: time(), seq: Int32.random(in: -1...1_000, using: &random))
                person.onboardings.append(PathAggregator.Onboarding(outcome: outcome, anchor: anchor))
            }
            people.append(("p\(index)", person))
        }
        let back = Self.readBack(people)
        #expect(back.count == people.count)
        for (user, person) in people {
            let stored = back[user]
            #expect(stored?.entries.map(\.position) == person.entries.map(\.position))
            #expect(stored?.entries.map(\.label) == person.entries.map(\.label))
            #expect(stored?.onboardings.map(\.anchor) == person.onboardings.map(\.anchor))
            #expect(
                stored?.onboardings.map { [$0.outcome.start, Int64($0.outcome.lastStep ?? .min)] }
                    == person.onboardings.map { [$0.outcome.start, Int64($0.outcome.lastStep ?? .min)] })
            #expect(stored?.onboardings.map { $0.outcome.status } == person.onboardings.map { $0.outcome.status })
        }
    }

    /// A retention person (onboardings, activity times, exposure) comes back exactly, a tie of
    /// variants included.
    @Test func aRetentionPersonComesBackAsItWasStored() {
        var random = SplitMix64(seed: 12)
        var people: [(user: String, unit: RetentionAggregator.Person)] = []
        for index in 0..<300 {
            var person = RetentionAggregator.Person()
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let outcome = FunnelOutcome(
                    status: [.completed, .dropped, .inProgress][Int.random(in: 0..<3, using: &random)],
                    start: Int64.random(in: .min ... .max, using: &random),
                    lastStep: Bool.random(using: &random) ? Int.random(in: 0...70, using: &random) : nil)
                person.onboardings.append(
                    RetentionAggregator.Onboarding(
                        outcome: outcome,
                        flowVersion: Bool.random(using: &random) ? Int.random(in: -5...Int.max, using: &random) : nil,
                        variant: Bool.random(using: &random) ? UInt32.random(in: 0 ... .max, using: &random) : nil))
            }
            person.times = (0..<Int.random(in: 0...20, using: &random)).map { _ in
                Int64.random(in: .min ... .max, using: &random)
            }.sorted()
            if Bool.random(using: &random) {
                let variants = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    UInt32.random(in: 0...9, using: &random)
                }
                person.exposure = (Int64.random(in: .min ... .max, using: &random), variants)
            }
            people.append(("p\(index)", person))
        }
        let back = Self.readBack(people)
        #expect(back.count == people.count)
        for (user, person) in people {
            let stored = back[user]
            #expect(stored?.times == person.times)
            #expect(stored?.exposure?.time == person.exposure?.time)
            #expect(stored?.exposure?.variants == person.exposure?.variants)
            #expect(stored?.onboardings.map(\.flowVersion) == person.onboardings.map(\.flowVersion))
            #expect(stored?.onboardings.map(\.variant) == person.onboardings.map(\.variant))
            #expect(stored?.onboardings.map(\.outcome.start) == person.onboardings.map(\.outcome.start))
            #expect(stored?.onboardings.map(\.outcome.lastStep) == person.onboardings.map(\.outcome.lastStep))
            #expect(stored?.onboardings.map(\.outcome.status) == person.onboardings.map(\.outcome.status))
        }
    }

    /// A discovery trace comes back exactly: `nil` and empty names apart, names of every kind of
    /// character, times at the extremes and in any order.
    @Test func aDiscoveryTraceComesBackAsItWasStored() {
        var random = SplitMix64(seed: 13)
        let names: [String?] = [
            nil, "", "share", "ünïcödé ✓", "a much longer feature name than fifteen bytes", "\u{0}",
        ]
        func name() -> String? { names[Int.random(in: 0..<names.count, using: &random)] }
        func time() -> Int64 {
            Bool.random(using: &random)
                ? [Int64.min, .max, 0, -1][Int.random(in: 0..<4, using: &random)]
                : Int64.random(in: .min ... .max, using: &random)
        }
        var traces: [(user: String, unit: DiscoveryTrace)] = []
        for index in 0..<300 {
            var trace = DiscoveryTrace(stepCount: 0)
            trace.start = time()
            trace.flowID = name()
            for id in 0..<Int.random(in: 0...3, using: &random) {
                let feature = name()
                trace.shown["h\(id)\(name() ?? "")"] = DiscoveryTrace.Showing(
                    time: time(), feature: feature, dismissedAt: Bool.random(using: &random) ? time() : nil,
                    reason: name(), featureAt: feature == nil ? 0 : time())
            }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                trace.uses[name() ?? "f"] = (0..<Int.random(in: 0...5, using: &random)).map { _ in time() }
            }
            if Bool.random(using: &random) { trace.exposure = (time(), name() ?? "control") }
            traces.append(("p\(index)", trace))
        }
        let back = Self.readBack(traces)
        #expect(back.count == traces.count)
        for (user, trace) in traces {
            let stored = back[user]
            #expect(stored?.start == trace.start && stored?.flowID == trace.flowID)
            #expect(stored?.uses == trace.uses)
            #expect(
                stored?.exposure?.time == trace.exposure?.time && stored?.exposure?.variant == trace.exposure?.variant)
            #expect(stored?.shown.count == trace.shown.count)
            for (id, showing) in trace.shown {
                let other = stored?.shown[id]
                #expect(other?.time == showing.time && other?.feature == showing.feature)
                #expect(other?.featureAt == showing.featureAt)
                #expect(other?.dismissedAt == showing.dismissedAt && other?.reason == showing.reason)
            }
        }
    }

    /// What the store should do: merge into the user's state, or hold it as their first.
    static func hold(_ state: FunnelUnitState, of user: String, in states: inout [String: FunnelUnitState]) {
        if var held = states[user] {
            held.merge(state)
            states[user] = held
        } else {
            states[user] = state
        }
    }

    @Test func aUsersStatesAreMergedAsFunnelUnitStateMergesThem() {
        var random = SplitMix64(seed: 42)
        let steps = 6
        // Each user's states merged by FunnelUnitState itself, in the same order: merging is
        // commutative in what it reports, but not in origins of times a unit does not have.
        var expected: [[String: FunnelUnitState]] = [[:], [:]]
        var stores: [PackedUnitStore<FunnelUnitState>] = [
            PackedUnitStore(stepCount: steps, chunkSize: 4_096), PackedUnitStore(stepCount: steps),
        ]
        var scratch = FunnelUnitState(stepCount: steps)
        for _ in 0..<2_000 {
            var state = Self.randomState(steps: steps, using: &random)
            // Replays give states without origins; merges make them.
            state.fromStartOrigins = nil
            state.onStepOrigins = nil
            state.lastStart = nil
            let user = "user-\(Int.random(in: 0..<400, using: &random))"
            // Half into one store, half into another, then the two merged (as shards are).
            let side = Int.random(in: 0...1, using: &random)
            Self.hold(state, of: user, in: &expected[side])
            stores[side].merge(state, user: user, scratch: &scratch)
        }
        for (user, state) in expected[1] { Self.hold(state, of: user, in: &expected[0]) }
        stores[0].merge(stores[1])
        #expect(stores[0].count == expected[0].count)
        #expect(Self.contents(of: stores[0]) == expected[0].mapValues(Fields.init))
        // Users were merged within a store and across the two, so merged states are compared.
        #expect(expected[0].values.filter { $0.fromStartOrigins != nil }.count > 300)
    }
}
