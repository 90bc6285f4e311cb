import Foundation
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// Generates realistic recorded sessions for a `Scenario` from its `BehaviourModel`.
///
/// Deterministic: every session draws from its own xoshiro256** stream seeded by
/// `(seed, session index)`, so the same seed gives the same bytes, and any session can be
/// regenerated alone. Sessions are driven through `FlowNavigator`, so their flow events are legal
/// moves; transport faults (duplicates, late events, swapped lines) are then applied as
/// configured in `BehaviourModel.Faults`.
public struct SyntheticGenerator: Sendable {
    /// The scenario.
    public let scenario: Scenario
    /// The seed.
    public let seed: UInt64
    let catalog: FlowCatalog
    let periodStart: Int64
    let periodEnd: Int64
    let stepBehaviour: [String: [String: BehaviourModel.StepBehaviour]]
    let highlightBehaviour: [String: BehaviourModel.HighlightBehaviour]
    let entryWeights: [Double]
    /// Every highlight of the scenario's flows, in flow-id order (dictionary order differs between
    /// processes and would break same-seed-same-bytes).
    let declaredHighlights: [Highlight]

    /// One generated session.
    public struct Session: Sendable, Hashable {
        /// Its events in `seq` order (faults not applied).
        public var events: [Event]
        /// Whether it was cut off at the end of the period.
        public var inProgress: Bool
        /// Whether its root flow completed.
        public var completed: Bool
        /// Whether its client clock was skewed.
        public var skewed: Bool
        /// Its experiment variant, if exposed.
        public var variant: String?
        /// Its user index.
        public var userIndex: Int
    }

    /// Creates a generator; throws when the scenario's flows are invalid.
    public init(scenario: Scenario, seed: UInt64) throws(FlowError) {
        self.scenario = scenario
        self.seed = seed
        catalog = try FlowCatalog(scenario.flows)
        let start = Timestamp.parse(scenario.model.timing.start).map(Timestamp.milliseconds) ?? 0
        periodStart = start
        periodEnd = start + Int64(scenario.model.timing.days) * 86_400_000
        var steps: [String: [String: BehaviourModel.StepBehaviour]] = [:]
        for behaviour in scenario.model.steps { steps[behaviour.flow, default: [:]][behaviour.step] = behaviour }
        stepBehaviour = steps
        var highlights: [String: BehaviourModel.HighlightBehaviour] = [:]
        for behaviour in scenario.model.highlights { highlights[behaviour.highlight] = behaviour }
        highlightBehaviour = highlights
        entryWeights = scenario.model.entries.map(\.weight)
        let flows = catalog.flows
        declaredHighlights = flows.keys.sorted().flatMap { flows[$0]?.steps.flatMap(\.highlights) ?? [] }
    }

    /// The end of the generated period.
    public var periodEndDate: Date { Timestamp.date(milliseconds: periodEnd) }

    /// Independent stream for `(scenario, seed, index, salt)`. The scenario's name is mixed in so
    /// that two scenarios generated with one seed into one database never share session ids.
    func stream(_ index: Int, salt: UInt64) -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: SplitMix64.mix(scenarioSeed ^ SplitMix64.mix(UInt64(index) &* 4 &+ salt)))
    }

    /// The seed mixed with the scenario's name (FNV-1a), fixed per generator.
    private var scenarioSeed: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in scenario.name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return seed ^ hash
    }

    /// The variant of the experiment for a user: hashed from the user, not drawn per session, so
    /// a returning user keeps the variant.
    func variantIndex(userIndex: Int, experiment: BehaviourModel.Experiment) -> Int {
        var random = stream(userIndex, salt: 3)
        return random.pick(weights: experiment.weights)
    }

    /// Generates session `index` (0-based).
    public func session(_ index: Int) -> Session {
        var random = stream(index, salt: 1)
        let model = scenario.model
        let entry = model.entries[random.pick(weights: entryWeights)]
        var context: [String: JSONValue] = [:]
        for attribute in model.context {
            context[attribute.name] = attribute.values[random.pick(weights: attribute.weights)]
        }
        for (name, value) in entry.context { context[name] = value }
        var userIndex = index
        if index > 0 && random.bernoulli(model.repeatUser) { userIndex = Int(random.next() % UInt64(index)) }
        let inProgressWindow = Int64(model.timing.inProgressMinutes * 60_000)
        let startTime =
            random.bernoulli(model.timing.inProgressShare)
            ? random.integer(in: (periodEnd - inProgressWindow)..<periodEnd)
            : random.integer(in: periodStart..<(periodEnd - 86_400_000))
        let sessionID = UUIDv7Generator.randomV4(using: &random)

        guard let flow = catalog[entry.flow] else {
            return Session(events: [], inProgress: false, completed: false, skewed: false, variant: nil, userIndex: 0)
        }
        var run = SessionRun(
            navigator: FlowNavigator(flow: flow, catalog: catalog, context: context), time: startTime)
        var variant: (index: Int, name: String)?
        // Only sessions whose path contains the experiment's step are exposed to it.
        if let experiment = model.experiment, experiment.flow == flow.id,
            flow.step(experiment.step)?.applies(to: context) ?? false
        {
            let chosen = variantIndex(userIndex: userIndex, experiment: experiment)
            variant = (chosen, experiment.variants[chosen])
        }
        simulate(&run, random: &random, variant: variant)

        // Events ordered by time; ties keep emission order. Flow events are emitted in time order,
        // so only sessions with later feature use need the sort.
        var timeline = run.timeline
        if zip(timeline, timeline.dropFirst()).contains(where: { $0.time > $1.time }) {
            timeline = timeline.enumerated().sorted {
                ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
            }.map(\.element)
        }
        let kept = timeline.prefix { $0.time < periodEnd }
        let skewed = random.bernoulli(model.faults.clockSkew)
        let skew: Int64 = skewed ? (random.bernoulli(0.5) ? 1 : -1) * random.integer(in: 60_000..<7_200_000) : 0
        var ids = UUIDv7Generator()
        var events: [Event] = []
        events.reserveCapacity(kept.count)
        for (position, item) in kept.enumerated() {
            let clientTime = item.time + skew
            // Recorders flush at most every 10 s; the network adds 50–500 ms.
            let sent = clientTime + random.integer(in: 200..<10_000)
            let received = sent - skew + random.integer(in: 50..<500)
            events.append(
                Event(
                    item.draft, eventID: ids.next(milliseconds: clientTime, using: &random), sessionID: sessionID,
                    userID: "user-\(userIndex)", seq: position + 1,
                    occurredAt: Timestamp.date(milliseconds: clientTime),
                    sentAt: Timestamp.date(milliseconds: sent), receivedAt: Timestamp.date(milliseconds: received)))
        }
        let inProgress = kept.count < timeline.count
        let completed = events.contains { $0.kind == .flowCompleted && $0.flowID == flow.id }
        return Session(
            events: events, inProgress: inProgress, completed: completed, skewed: skewed, variant: variant?.name,
            userIndex: userIndex)
    }

    struct SessionRun {
        var navigator: FlowNavigator
        var time: Int64
        var timeline: [(draft: EventDraft, time: Int64)] = []

        mutating func add(_ drafts: [EventDraft], random: inout Xoshiro256StarStar) {
            for draft in drafts {
                timeline.append((draft, time))
                time += random.integer(in: 40..<400)
            }
        }
    }

    private func simulate(
        _ run: inout SessionRun, random: inout Xoshiro256StarStar, variant: (index: Int, name: String)?
    ) {
        let model = scenario.model
        guard let started = try? run.navigator.start() else { return }
        run.add(Array(started.prefix(1)), random: &random)
        if let variant, let experiment = model.experiment {
            run.add(run.navigator.exposure(experiment: experiment.key, variant: variant.name), random: &random)
        }
        run.add(Array(started.dropFirst()), random: &random)

        // Features the user already knew: used before any highlight showed them.
        var knew: Set<String> = []
        var shown: Set<String> = []
        let declared = declaredHighlights
        for highlight in declared {
            guard let behaviour = highlightBehaviour[highlight.id], random.bernoulli(behaviour.alreadyKnew) else {
                continue
            }
            knew.insert(highlight.id)
            run.add(run.navigator.featureUsed(behaviour.feature), random: &random)
        }

        // Steps are keyed by (flow depth, step index): cheaper than hashing "flow/step" strings,
        // and unique because a session is in at most one flow per depth at a time.
        var decided: Set<Int> = []
        var backTried: Set<Int> = []
        var later: [(draft: EventDraft, time: Int64)] = []
        var moves = 0
        while run.navigator.status == .running, let step = run.navigator.currentStep, moves < 200 {
            moves += 1
            let flowID = run.navigator.currentFlowID
            let key = run.navigator.frames.count << 16 | (run.navigator.frames.last?.index ?? 0)
            let behaviour = stepBehaviour[flowID]?[step.id] ?? model.defaultStep
            let firstVisit = !decided.contains(key)

            if firstVisit {
                for highlight in step.highlights where !shown.contains(highlight.id) {
                    guard let hb = highlightBehaviour[highlight.id], random.bernoulli(hb.show) else { continue }
                    shown.insert(highlight.id)
                    run.time += random.integer(in: 500..<3000)
                    run.add((try? run.navigator.showHighlight(highlight.id)) ?? [], random: &random)
                    let reasons = hb.reasons.keys.sorted()
                    let reasonName = reasons[random.pick(weights: reasons.map { hb.reasons[$0] ?? 0 })]
                    let reason = DismissReason(rawValue: reasonName) ?? .closed
                    run.time += Int64(random.logNormal(median: 4000, sigma: 0.5))
                    run.add((try? run.navigator.dismissHighlight(highlight.id, reason: reason)) ?? [], random: &random)
                    if !knew.contains(highlight.id), random.bernoulli(hb.useAfter[reasonName] ?? 0) {
                        let delay =
                            reason == .actionPerformed
                            ? random.integer(in: 300..<3000)
                            : Int64(random.logNormal(median: hb.medianHoursToUse * 3_600_000, sigma: 1))
                        later.append(
                            (
                                run.navigator.featureUsed(hb.feature).first ?? EventDraft(kind: .featureUsed),
                                run.time + delay
                            ))
                    }
                }
                if random.bernoulli(behaviour.customScreen) {
                    run.time += random.integer(in: 1000..<5000)
                    run.add((try? run.navigator.showCustom(step.id + "-info")) ?? [], random: &random)
                    run.time += Int64(random.logNormal(median: 8000, sigma: 0.6))
                }
                if !backTried.contains(key), run.navigator.canGoBack,
                    let previous = run.navigator.frames.last?.history.last,
                    run.navigator.currentFlow.steps[previous].handOff == nil
                {
                    backTried.insert(key)
                    if random.bernoulli(behaviour.back) {
                        run.time += Int64(
                            random.logNormal(median: behaviour.medianSeconds * 500, sigma: behaviour.sigma))
                        run.add((try? run.navigator.back()) ?? [], random: &random)
                        run.time += Int64(random.logNormal(median: 3000, sigma: 0.5))
                        run.add((try? run.navigator.next()) ?? [], random: &random)
                        continue
                    }
                }
            }
            run.time += Int64(random.logNormal(median: behaviour.medianSeconds * 1000, sigma: behaviour.sigma))
            guard firstVisit else {
                run.add((try? run.navigator.next()) ?? [], random: &random)
                continue
            }
            decided.insert(key)
            var (drop, skip) = behaviour.probabilities(for: run.navigator.context)
            if let variant, let experiment = model.experiment, experiment.flow == flowID, experiment.step == step.id {
                drop = min(max(drop + experiment.dropDelta[variant.index], 0), 1)
            }
            let draw = random.uniform()
            if draw < drop {
                if random.bernoulli(model.abandonEvent) {
                    run.add((try? run.navigator.abandon()) ?? [], random: &random)
                }
                break
            }
            if step.skippable && draw < drop + skip {
                run.add((try? run.navigator.skip()) ?? [], random: &random)
                continue
            }
            var jumped = false
            for target in behaviour.jumps.keys.sorted() where random.bernoulli(behaviour.jumps[target] ?? 0) {
                run.add((try? run.navigator.goTo(target)) ?? [], random: &random)
                jumped = true
                break
            }
            if !jumped { run.add((try? run.navigator.next()) ?? [], random: &random) }
        }

        // Organic use of features whose highlight this session never saw (the baseline).
        for highlight in declared where !shown.contains(highlight.id) && !knew.contains(highlight.id) {
            guard let hb = highlightBehaviour[highlight.id], random.bernoulli(hb.organic) else { continue }
            let delay = Int64(random.logNormal(median: hb.medianHoursToUse * 3_600_000, sigma: 1))
            later.append(
                (run.navigator.featureUsed(hb.feature).first ?? EventDraft(kind: .featureUsed), run.time + delay))
        }
        run.timeline += later
    }
}
