import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Recovers the generator's known behaviour parameters from its data through `FunnelReport`:
/// for every scenario, 200,000 sessions (generated as `--no-faults` does, in memory), grouped with
/// `RecordedSession.group`, replayed per flow, and compared with the model in the parameters
/// report.
///
/// What is compared, per step of every flow (sub-flows too), given the step's first view:
/// - drop: `droppedHere / viewed` against `drop` (after rules and the experiment's `dropDelta`);
/// - skip: `skipped / viewed` against `skip × (1 − back(next step))`: a skipped step that the
///   next step goes back to is completed on the way forward again, and the report counts it
///   completed (completion beats skip), so the share still skipped at the end is smaller;
/// - continuation: `conversionFromPrevious` against `1 − drop − (1 − drop − skip) × P(jump past
///   the next step)` of the previous step on the session's path (times the sub-flow's completion
///   probability when the previous step hands off);
/// - completion: `completed / settled` against the probability of reaching the end, computed from
///   the model by propagating probability mass over the flow's steps.
///
/// Sessions are split into cells of equal context (all attributes but `platform`) and variant;
/// each cell's report uses the `platform` breakdown, so within one group every session has the
/// same known parameters. Counts of groups with the same known value are pooled. Completion
/// probabilities differ between nearly all cells: they are pooled per flow with the expected
/// value `Σ nᵢ·pᵢ / Σ nᵢ`, whose binomial interval is conservative for such a mixture.
///
/// Interval: Wilson score interval at 99 % (z = 2.576) from the observed count `x` of `n`; the
/// known value must lie inside it.
///
/// In-progress sessions: the generator starts a share of sessions in the last minutes of the
/// period and cuts them off. They are left out with `until` (computed from the model's timing),
/// and the report's end is set a conversion window after the period, so no session counted is
/// in progress and every other one has been decided.
@Suite struct GeneratorRecoveryTests {
    static let sessions = 200_000
    static let seed: UInt64 = 20_260_105

    @Test(arguments: Scenario.all.map(\.name))
    func knownParametersAreRecovered(name: String) async throws {
        let scenario = try #require(Scenario.named(name))
        var clean = scenario
        clean.model.faults = .none  // as `funnel generate --no-faults`
        let generator = try SyntheticGenerator(scenario: clean, seed: Self.seed)
        // The known parameters, as the parameters file holds them.
        let report = try JSONDecoder().decode(
            GenerationReport.self,
            from: generator.report(sessions: Self.sessions, summary: GenerationSummary()).jsonData())
        let model = report.model
        let periodEnd = try #require(Timestamp.parse(report.periodEnd))
        let flows = Dictionary(uniqueKeysWithValues: clean.flows.map { ($0.id, $0) })

        var options = FunnelOptions()
        options.breakdown = "platform"
        options.until = periodEnd.addingTimeInterval(-model.timing.inProgressMinutes * 60)
        options.reportEnd = periodEnd.addingTimeInterval(options.window)

        // Minutes of CPU: on a thread of its own, not the cooperative pool, so the suites that
        // wait on it in the same process (the HTTP transport's requests) are not starved.
        let counts = try await BlockingIO.run { [options, clean] in
            try Self.count(generator: generator, flows: clean.flows, options: options)
        }
        var checks = Checks()
        for (key, cell) in counts.cells.sorted(by: { $0.key.description < $1.key.description }) {
            guard let flow = flows[key.flowID] else { continue }
            let expectation = Expectation(model: model, flows: flows, context: key.context, variant: key.variant)
            #expect(cell.inProgress == 0, "\(name) \(key): in progress")
            checks.add(
                "\(flow.id) completion", successes: cell.completed, trials: cell.started - cell.inProgress,
                expected: expectation.completion(of: flow), pooled: true)
            let path = flow.steps.indices.filter { flow.steps[$0].applies(to: key.context) }
            for (position, index) in path.enumerated() {
                let step = flow.steps[index]
                let row = cell.steps[index]
                let (drop, skip) = expectation.probabilities(flow: flow, step: index)
                // The report counts a unit as dropped at its last viewed step of this flow: for a
                // hand-off step that includes drops inside the sub-flow, whose steps are not this flow's.
                let subFlowCompletion = step.handOff.flatMap { flows[$0] }.map(expectation.completion(of:)) ?? 1
                checks.add(
                    "\(flow.id)/\(step.id) drop", successes: row.droppedHere, trials: row.viewed,
                    expected: drop + (1 - drop - skip) * (1 - subFlowCompletion))
                if step.skippable {
                    let next = position + 1 < path.count ? path[position + 1] : nil
                    let back = next.map { expectation.backProbability(flow: flow, step: $0) } ?? 0
                    // The last skip on the path comes moments before flow_completed; the replay must
                    // count it even when skew correction would have ordered it after (fixed in main).
                    checks.add(
                        "\(flow.id)/\(step.id) skip\(next == nil ? " (last on path)" : "")", successes: row.skipped,
                        trials: row.viewed, expected: skip * (1 - back))
                }
                if position > 0 {
                    let previous = path[position - 1]
                    checks.add(
                        "\(flow.id)/\(flow.steps[previous].id)→\(step.id) continuation",
                        successes: row.viewedAfterPrevious, trials: row.previousReached,
                        expected: expectation.continuation(flow: flow, from: previous, to: index))
                } else {
                    // The first step on the path is shown at the start, to everyone.
                    #expect(row.viewedAfterPrevious == row.previousReached, "\(name) \(key) \(step.id)")
                }
            }
        }
        for failure in checks.failures() { Issue.record("\(name): \(failure)") }
        #expect(checks.count > 0)
        if ProcessInfo.processInfo.environment["ONBOARDMETRICS_RECOVERY_VERBOSE"] != nil {
            print("\(name): \(checks.count) checks\n" + checks.lines().joined(separator: "\n"))
        }
    }

    // MARK: - Counting

    /// Where a group of sessions sits: its flow, its context (platform included) and variant.
    struct CellKey: Hashable, CustomStringConvertible {
        var flowID: String
        var context: [String: JSONValue]
        var variant: String?

        var description: String {
            let attributes = context.keys.sorted().map { "\($0)=\(context[$0].map { "\($0)" } ?? "")" }
            return "\(flowID) [\(attributes.joined(separator: ", "))] variant=\(variant ?? "-")"
        }
    }

    /// Step counts of one cell, summed over blocks.
    struct StepCounts {
        var viewed = 0
        var skipped = 0
        var droppedHere = 0
        var previousReached = 0
        var viewedAfterPrevious = 0
    }

    struct CellCounts {
        var started = 0
        var completed = 0
        var inProgress = 0
        var steps: [StepCounts]

        mutating func add(_ group: FunnelReport.Group) {
            started += group.totals.started
            completed += group.totals.completed
            inProgress += group.totals.inProgress
            var previousViewed = group.totals.started - group.totals.inProgress
            for (index, row) in group.steps.enumerated() where row.eligible > 0 {
                steps[index].viewed += row.viewed
                steps[index].skipped += row.skipped
                steps[index].droppedHere += row.droppedHere
                // Every session of the group has the same path, so the units that reached the
                // previous step are those that viewed it (all started ones for the first step).
                steps[index].previousReached += previousViewed
                steps[index].viewedAfterPrevious += Int(
                    ((row.conversionFromPrevious ?? 0) * Double(previousViewed)).rounded())
                previousViewed = row.viewed
            }
        }
    }

    final class Counts: Sendable {
        /// Blocks are counted on several threads.
        private let counted = LockedBox<[CellKey: CellCounts]>([:])
        var cells: [CellKey: CellCounts] { counted.withLock { $0 } }

        func add(_ report: FunnelReport, flow: FlowDefinition, context: [String: JSONValue], variant: String?) {
            counted.withLock { cells in
                for group in report.groups {
                    var full = context
                    if let platform = group.breakdown, platform != "(none)" { full["platform"] = .string(platform) }
                    let key = CellKey(flowID: flow.id, context: full, variant: variant)
                    var cell =
                        cells[key]
                        ?? CellCounts(steps: Array(repeating: StepCounts(), count: flow.steps.count))
                    cell.add(group)
                    cells[key] = cell
                }
            }
        }
    }

    /// Generates the sessions in blocks; each block is grouped, split into cells and reported, so
    /// memory holds one block rather than all 200,000 sessions. A plain loop, not Dispatch's
    /// workers (on Linux the cooperative pool): the scenarios run as parallel test cases anyway.
    static func count(generator: SyntheticGenerator, flows: [FlowDefinition], options: FunnelOptions) throws -> Counts {
        let counts = Counts()
        let block = 4_000
        let blocks = (sessions + block - 1) / block
        let experiment = generator.scenario.model.experiment?.key
        for number in 0..<blocks {
            let range = (number * block)..<min(sessions, (number + 1) * block)
            var cells: [CellKey: [RecordedSession]] = [:]
            // Grouped one generated session at a time: the same result as grouping the whole
            // block, without sorting a block's events by their id strings.
            for var session in range.flatMap({ RecordedSession.group(generator.session($0).events) }) {
                var context = session.context
                context["platform"] = nil
                let variant = experiment.flatMap { session.variant(of: $0) }
                let root = session.flowID ?? ""
                cells[CellKey(flowID: root, context: context, variant: variant), default: []].append(session)
                // FunnelReport counts a session under the flow it started; a sub-flow's steps are
                // reported by presenting the sessions that entered it as sessions of that flow.
                for flow in flows where flow.id != root && session.events.contains(where: { $0.flowID == flow.id }) {
                    session.flowID = flow.id
                    cells[CellKey(flowID: flow.id, context: context, variant: variant), default: []].append(session)
                }
            }
            for (key, sessions) in cells {
                guard let flow = flows.first(where: { $0.id == key.flowID }) else { continue }
                let report = try FunnelAggregator(flow: flow, options: options, now: Date()).report(of: sessions)
                counts.add(report, flow: flow, context: key.context, variant: key.variant)
            }
        }
        return counts
    }

    // MARK: - Known values

    /// The model's probabilities for one session context and variant.
    struct Expectation {
        let model: BehaviourModel
        let flows: [String: FlowDefinition]
        let context: [String: JSONValue]
        let variant: String?

        /// (drop, skip) on first view, after rules and the experiment.
        func probabilities(flow: FlowDefinition, step index: Int) -> (drop: Double, skip: Double) {
            let step = flow.steps[index]
            var (drop, skip) = model.behaviour(flow: flow.id, step: step.id).probabilities(for: context)
            if let experiment = model.experiment, experiment.flow == flow.id, experiment.step == step.id,
                let variant, let chosen = experiment.variants.firstIndex(of: variant)
            {
                drop = min(max(drop + experiment.dropDelta[chosen], 0), 1)
            }
            return (drop, step.skippable ? skip : 0)
        }

        /// The chance of going back from `index` to the step before it, on its first view.
        func backProbability(flow: FlowDefinition, step index: Int) -> Double {
            model.behaviour(flow: flow.id, step: flow.steps[index].id).back
        }

        /// Declared jumps taken from `index`, target → probability (the generator tries targets
        /// in sorted order and takes the first that succeeds).
        func jumps(flow: FlowDefinition, step index: Int) -> [(target: Int, probability: Double)] {
            let jumps = model.behaviour(flow: flow.id, step: flow.steps[index].id).jumps
            var untaken = 1.0
            var result: [(Int, Double)] = []
            for target in jumps.keys.sorted() {
                let probability = jumps[target] ?? 0
                if let targetIndex = flow.index(of: target) { result.append((targetIndex, untaken * probability)) }
                untaken *= 1 - probability
            }
            return result
        }

        /// P(the step is viewed | the previous step on the path was), for consecutive path steps.
        func continuation(flow: FlowDefinition, from previous: Int, to index: Int) -> Double {
            let (drop, skip) = probabilities(flow: flow, step: previous)
            let proceeding = 1 - drop - skip
            let past = jumps(flow: flow, step: previous).filter { $0.target > index }
            // A session that jumped past the step and goes back at the jump's target returns to
            // `previous` and then moves on in declared order, so it views the step after all.
            let returned = past.map { $0.probability * backProbability(flow: flow, step: $0.target) }.reduce(0, +)
            let jumped = past.map(\.probability).reduce(0, +)
            let handOff = flow.steps[previous].handOff.flatMap { flows[$0] }.map(completion(of:)) ?? 1
            return skip + proceeding * (1 - jumped + returned) * handOff
        }

        /// P(the flow completes), by moving probability mass forward over its steps.
        func completion(of flow: FlowDefinition) -> Double {
            let count = flow.steps.count
            var mass = [Double](repeating: 0, count: count + 1)
            func nextOnPath(after index: Int) -> Int {
                (index + 1..<count).first { flow.steps[$0].applies(to: context) } ?? count
            }
            mass[nextOnPath(after: -1)] = 1
            for index in 0..<count where mass[index] > 0 {
                let (drop, skip) = probabilities(flow: flow, step: index)
                let next = nextOnPath(after: index)
                mass[next] += mass[index] * skip
                let proceeding = mass[index] * (1 - drop - skip)
                var jumped = 0.0
                for jump in jumps(flow: flow, step: index) where jump.target > index {
                    // Going back at the target returns here and moves on in declared order.
                    let back = backProbability(flow: flow, step: jump.target)
                    mass[jump.target] += proceeding * jump.probability * (1 - back)
                    jumped += jump.probability * (1 - back)
                }
                let handOff = flow.steps[index].handOff.flatMap { flows[$0] }.map(completion(of:)) ?? 1
                mass[next] += proceeding * (1 - jumped) * handOff
            }
            return mass[count]
        }
    }

    // MARK: - Intervals

    /// Observed counts against known values, pooled per label and known value.
    struct Checks {
        struct Pool {
            var successes = 0
            var trials = 0
            /// Σ trials × known value, so the pool's known value is the trials-weighted mean.
            var expectedSuccesses = 0.0
        }

        private var pools: [String: Pool] = [:]

        var count: Int { pools.count }

        /// Adds counts; `pooled` mixes different known values under one label (completion).
        mutating func add(
            _ label: String, successes: Int, trials: Int, expected: Double, pooled: Bool = false
        ) {
            guard trials > 0 else { return }
            let key = pooled ? label : "\(label) = \(String(format: "%.6f", expected))"
            var pool = pools[key] ?? Pool()
            pool.successes += successes
            pool.trials += trials
            pool.expectedSuccesses += expected * Double(trials)
            pools[key] = pool
        }

        private func describe(_ key: String, _ pool: Pool) -> (String, Bool) {
            let known = pool.expectedSuccesses / Double(pool.trials)
            // The library's Wilson interval, itself checked against Newcombe (1998) in StatisticsTests.
            let wilson = ConfidenceInterval.wilson(successes: pool.successes, trials: pool.trials, level: 0.99)
            let interval = (wilson?.lower ?? 0)...(wilson?.upper ?? 1)
            let observed = Double(pool.successes) / Double(pool.trials)
            let inside = interval.contains(known) || abs(known - observed) < 1e-12
            let line =
                "\(key): recovered \(String(format: "%.4f", observed)) (\(pool.successes)/\(pool.trials)), "
                + "99% CI [\(String(format: "%.4f", interval.lowerBound)), \(String(format: "%.4f", interval.upperBound))]"
                + ", known \(String(format: "%.4f", known))\(inside ? "" : "  OUTSIDE")"
            return (line, inside)
        }

        func failures() -> [String] {
            pools.keys.sorted().compactMap { key in
                guard let pool = pools[key] else { return nil }
                let (line, inside) = describe(key, pool)
                return inside ? nil : line
            }
        }

        func lines() -> [String] {
            pools.keys.sorted().compactMap { key in pools[key].map { describe(key, $0).0 } }
        }
    }
}
