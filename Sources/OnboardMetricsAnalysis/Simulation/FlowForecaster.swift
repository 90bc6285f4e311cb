import OnboardMetricsSDK

/// Turns behaviour counters into a flow's expected funnel.
///
/// The model: a session moves through the steps its context gives it under the flow's navigator.
/// On each step it views, it drops with the step's recorded drop share, jumps ahead to a later
/// step of its path with the recorded share of first views that went there, and otherwise goes on
/// to the next step of its path (completing the flow after the last). Shares come from sessions
/// of the same stratum — the same baseline conditions true, and the same value of the stratifying
/// attribute — and from all strata where a stratum has fewer than the minimum viewers.
///
/// Because transitions are counted between first views, simulating the baseline flow itself gives
/// back the recorded completion exactly when the recordings follow the baseline's navigator;
/// what the back-test then measures is how far they do not.
struct FlowForecaster: Sendable {
    /// What the sessions on one step do, as shares of its viewers.
    struct Behaviour: Sendable {
        var viewers: Double
        /// Share ending here (dropped; with no later first view).
        var drop: Double
        /// Shares going first to each other state (steps, or completed).
        var next: [(state: Int32, share: Double)]
        /// Share skipping the step.
        var skip: Double
    }

    /// A flow's expected funnel over the sessions read.
    struct Outcome: Sendable {
        var sessions: Double
        var completed: Double
        /// Per step of the flow.
        var eligible: [Double]
        var viewed: [Double]
        var dropped: [Double]
        var skipped: [Double]
        /// Sessions that dropped before viewing a step.
        var droppedAtStart: Double

        var completionRate: Double? { sessions > 0 ? completed / sessions : nil }
    }

    let data: SimulationData
    /// [stratum][state]: the transition counters leaving the state.
    private var outgoing: [[[(to: Int32, counter: Int)]]]
    /// [stratum][state]: the skip counter.
    private var skipCounters: [[Int?]]
    /// [stratum][state]: whether the stratum's own counts are used (decided once, on the recorded data).
    private var ownCounts: [[Bool]]
    /// Behaviour over all strata in the recorded data: the fallback when a draw has none.
    private(set) var recordedPooled: [Behaviour?] = []

    init(data: SimulationData, minimumObservations: Int) {
        self.data = data
        let states = Int(data.stateCount)
        outgoing = Array(repeating: Array(repeating: [], count: states), count: data.stratumCount)
        skipCounters = Array(repeating: Array(repeating: nil, count: states), count: data.stratumCount)
        for transition in data.transitions {
            outgoing[transition.stratum][Int(transition.from)].append((transition.to, transition.counter))
        }
        for skip in data.skips { skipCounters[skip.stratum][Int(skip.state)] = skip.counter }
        ownCounts = outgoing.map { states in
            states.map { transitions in
                transitions.reduce(0.0) { $0 + data.recorded[$1.counter] } >= Double(minimumObservations)
            }
        }
        recordedPooled = pooled(data.recorded)
    }

    /// Behaviour per stratum and state for a set of counters.
    func behaviours(_ counters: [Double]) -> [[Behaviour?]] {
        let pooled = pooled(counters)
        return (0..<data.stratumCount).map { stratum in
            (0..<Int(data.stateCount)).map { state in
                if ownCounts[stratum][state],
                    let own = behaviour(
                        outgoing[stratum][state].map { ($0.to, counters[$0.counter]) },
                        skipped: skipCounters[stratum][state].map { counters[$0] } ?? 0)
                {
                    return own
                }
                return pooled[state] ?? recordedPooled[state]
            }
        }
    }

    private func pooled(_ counters: [Double]) -> [Behaviour?] {
        (0..<Int(data.stateCount)).map { state in
            var flows: [Int32: Double] = [:]
            var skipped = 0.0
            for stratum in 0..<data.stratumCount {
                for transition in outgoing[stratum][state] {
                    flows[transition.to, default: 0] += counters[transition.counter]
                }
                skipped += skipCounters[stratum][state].map { counters[$0] } ?? 0
            }
            return behaviour(flows.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, skipped: skipped)
        }
    }

    private func behaviour(_ flows: [(Int32, Double)], skipped: Double) -> Behaviour? {
        let viewers = flows.reduce(0) { $0 + $1.1 }
        guard viewers > 0 else { return nil }
        var result = Behaviour(viewers: viewers, drop: 0, next: [], skip: min(1, skipped / viewers))
        for (state, count) in flows where count > 0 {
            if state == SimulationData.droppedState {
                result.drop = count / viewers
            } else {
                result.next.append((state, count / viewers))
            }
        }
        return result
    }

    /// The expected funnel of `flow` for the sessions in `counters`.
    /// - Parameters:
    ///   - flow: the flow whose paths are walked.
    ///   - candidate: whether to use the candidate's paths (else the baseline's).
    ///   - stepStates: the state of each of the flow's steps.
    ///   - assumed: continuation rate by state, replacing the recorded behaviour.
    func outcome(
        flow: FlowDefinition, candidate: Bool, stepStates: [Int32], counters: [Double], behaviours: [[Behaviour?]],
        assumed: [Int32: Double]
    ) -> Outcome {
        let steps = flow.steps.count
        var outcome = Outcome(
            sessions: 0, completed: 0, eligible: Array(repeating: 0, count: steps),
            viewed: Array(repeating: 0, count: steps),
            dropped: Array(repeating: 0, count: steps), skipped: Array(repeating: 0, count: steps), droppedAtStart: 0)
        let paths = candidate ? data.candidatePaths : data.baselinePaths
        for cell in data.cells {
            let sessions = counters[cell.counter]
            guard sessions > 0 else { continue }
            let path = paths[candidate ? cell.candidatePath : cell.baselinePath]
            let strata = behaviours[cell.stratum]
            outcome.sessions += sessions
            var mass = Array(repeating: 0.0, count: path.count + 1)
            var begin = 1.0
            if let start = strata[Int(SimulationData.startState)] {
                outcome.droppedAtStart += sessions * start.drop
                begin -= start.drop
                for (target, share) in start.next {
                    guard let later = Self.position(of: target, in: path, stepStates: stepStates), later > 0 else {
                        continue
                    }
                    mass[later] += sessions * share
                    begin -= share
                }
            }
            mass[0] += sessions * max(0, begin)
            for (position, step) in path.enumerated() {
                outcome.eligible[step] += sessions
                let here = mass[position]
                outcome.viewed[step] += here
                guard here > 0 else { continue }
                let state = stepStates[step]
                var goOn: Double
                if let rate = assumed[state] {
                    outcome.dropped[step] += here * (1 - rate)
                    goOn = rate
                    if flow.steps[step].skippable, let recorded = strata[Int(state)] {
                        outcome.skipped[step] += here * min(recorded.skip, rate)
                    }
                } else if let recorded = strata[Int(state)] {
                    outcome.dropped[step] += here * recorded.drop
                    goOn = 1 - recorded.drop
                    if flow.steps[step].skippable { outcome.skipped[step] += here * recorded.skip }
                    // Jumps to a step further down this path skip the ones between.
                    for (target, share) in recorded.next {
                        guard let later = Self.position(of: target, in: path, stepStates: stepStates),
                            later > position + 1
                        else { continue }
                        mass[later] += here * share
                        goOn -= share
                    }
                } else {
                    // No behaviour: the caller has refused this (missingBehaviour) on the recorded data;
                    // a draw cannot lose a step that every draw pools over.
                    goOn = 1
                }
                mass[position + 1] += here * max(0, goOn)
            }
            outcome.completed += mass[path.count]
        }
        return outcome
    }

    /// Where a jump's target is on a path: a step's position, or the path's end for completed;
    /// `nil` for continuing and for targets off the path (both go on to the next step).
    private static func position(of state: Int32, in path: [Int], stepStates: [Int32]) -> Int? {
        if state == SimulationData.continuedState { return nil }
        if state == SimulationData.completedState { return path.count }
        return path.firstIndex { stepStates[$0] == state }
    }
}
