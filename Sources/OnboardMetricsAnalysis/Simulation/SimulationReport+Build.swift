import Foundation
import OnboardMetricsSDK
import OnboardMetricsStatistics

extension SimulationReport {
    static func forecast(_ read: SimulationSampler) throws(SimulationError) -> SimulationReport {
        // Numbered by content, so the draws do not depend on the order the sessions were read in.
        let sampler = read.canonical()
        let options = sampler.options
        guard options.draws >= 1 else { throw SimulationError(.invalidOptions, "--draws must be at least 1") }
        let data = sampler.finish()
        guard data.summary.sessions > 0 else {
            let summary = data.summary
            throw SimulationError(
                .noData,
                "no finished session of flow '\(options.baseline.id)' v\(options.baseline.version) in the data read "
                    + "(\(summary.sessionsRead) sessions read: \(summary.otherSessions) of other flows or times, "
                    + "\(summary.otherVersionSessions) of other versions, \(summary.otherVariantSessions) of other "
                    + "variants, \(summary.inProgressSessions) in progress)")
        }
        let forecaster = FlowForecaster(data: data, minimumObservations: options.minimumObservations)
        let candidateStates = options.candidate.steps.map { sampler.state(of: $0.id) ?? -1 }
        let baselineStates = options.baseline.steps.map { sampler.state(of: $0.id) ?? -1 }
        var assumed: [Int32: Double] = [:]
        for (step, rate) in options.assumptions {
            if let state = sampler.state(of: step) { assumed[state] = rate }
        }
        let recordedBehaviours = forecaster.behaviours(data.recorded)
        let candidate = forecaster.outcome(
            flow: options.candidate, candidate: true, stepStates: candidateStates, counters: data.recorded,
            behaviours: recordedBehaviours, assumed: assumed)
        for (index, step) in options.candidate.steps.enumerated()
        where candidate.eligible[index] > 0 && assumed[candidateStates[index]] == nil
            && forecaster.recordedPooled[Int(candidateStates[index])] == nil
        {
            throw SimulationError(
                .missingBehaviour,
                "step '\(step.id)' of flow '\(options.candidate.id)' has no recorded viewers in flow "
                    + "'\(options.baseline.id)' v\(options.baseline.version): pass --assume \(step.id)=RATE "
                    + "(the share of its viewers expected to go on, e.g. 0.9)")
        }
        let baseline = forecaster.outcome(
            flow: options.baseline, candidate: false, stepStates: baselineStates, counters: data.recorded,
            behaviours: recordedBehaviours, assumed: [:])
        let observed = observedCompletion(data)

        var candidateRates: [Double] = []
        var baselineRates: [Double] = []
        var observedRates: [Double] = []
        var deltas: [Double] = []
        var stepConversions = Array(repeating: [Double](), count: options.candidate.steps.count)
        var generator = Xoshiro256StarStar(seed: options.seed)
        for _ in 0..<options.draws {
            let counters = data.resampled(using: &generator)
            let behaviours = forecaster.behaviours(counters)
            let drawnCandidate = forecaster.outcome(
                flow: options.candidate, candidate: true, stepStates: candidateStates, counters: counters,
                behaviours: behaviours, assumed: assumed)
            let drawnBaseline = forecaster.outcome(
                flow: options.baseline, candidate: false, stepStates: baselineStates, counters: counters,
                behaviours: behaviours, assumed: [:])
            guard let candidateRate = drawnCandidate.completionRate, let baselineRate = drawnBaseline.completionRate,
                let observedRate = observedCompletion(counters, data)
            else { continue }
            candidateRates.append(candidateRate)
            baselineRates.append(baselineRate)
            observedRates.append(observedRate)
            deltas.append(candidateRate - observedRate)
            for index in stepConversions.indices where drawnCandidate.eligible[index] > 0 {
                stepConversions[index].append(drawnCandidate.viewed[index] / drawnCandidate.eligible[index])
            }
        }
        let level = options.level
        func estimate(_ value: Double?, _ draws: [Double]) -> Estimate {
            Estimate(value: value, interval: percentileInterval(draws, level: level))
        }
        let delta = candidate.completionRate.flatMap { forecast in observed.map { forecast - $0 } }
        // Below a millionth the delta is rounding noise of the sums, not a change to test for.
        let testableDelta = delta.flatMap { abs($0) < 1e-6 ? nil : $0 }
        let backTestForecast = estimate(baseline.completionRate, baselineRates)
        let steps = stepRows(
            options: options, sampler: sampler, data: data, forecaster: forecaster, outcome: candidate,
            conversions: stepConversions, candidateStates: candidateStates, assumed: assumed, level: level)
        let candidateIDs = Set(options.candidate.steps.map(\.id))
        return SimulationReport(
            candidateFlowID: options.candidate.id, candidateFlowVersion: options.candidate.version,
            baselineFlowID: options.baseline.id, baselineFlowVersion: options.baseline.version,
            variant: options.variant, stratify: options.stratify, strata: data.stratumCount, data: data.summary,
            draws: options.draws, seed: options.seed, level: level,
            forecastCompletion: estimate(candidate.completionRate, candidateRates),
            observedCompletion: estimate(observed, observedRates), completionDelta: estimate(delta, deltas),
            backTest: BackTest(
                forecastCompletion: backTestForecast, observedCompletion: observed,
                withinInterval: observed.map { backTestForecast.interval?.contains($0) ?? false } ?? false),
            sampleSizePerArm: testableDelta.flatMap { effect in
                observed.flatMap {
                    PowerAnalysis.sampleSizePerArm(
                        baseline: $0, effect: effect, alpha: options.alpha, power: options.power)
                }
            },
            alpha: options.alpha, power: options.power, steps: steps,
            removedSteps: options.baseline.steps.map(\.id).filter { !candidateIDs.contains($0) },
            assumptions: assumptionTexts(options: options, data: data))
    }

    /// Completed among sessions, as recorded.
    private static func observedCompletion(_ counters: [Double], _ data: SimulationData) -> Double? {
        let completed = data.completions.reduce(0.0) { $0 + counters[$1] }
        let started = data.cells.reduce(0.0) { $0 + counters[$1.counter] }
        return started > 0 ? completed / started : nil
    }

    private static func observedCompletion(_ data: SimulationData) -> Double? {
        observedCompletion(data.recorded, data)
    }

    /// The percentile interval of bootstrap draws (type 7 quantiles, as R's default).
    static func percentileInterval(_ draws: [Double], level: Double) -> ConfidenceInterval? {
        guard !draws.isEmpty else { return nil }
        let sorted = draws.sorted()
        let tail = (1 - level) / 2
        guard let lower = Quantiles.quantile(sorted: sorted, tail),
            let upper = Quantiles.quantile(sorted: sorted, 1 - tail)
        else { return nil }
        return ConfidenceInterval(lower: lower, upper: upper, level: level)
    }

    private static func stepRows(
        options: SimulationOptions, sampler: SimulationSampler, data: SimulationData, forecaster: FlowForecaster,
        outcome: FlowForecaster.Outcome, conversions: [[Double]], candidateStates: [Int32], assumed: [Int32: Double],
        level: Double
    ) -> [StepForecast] {
        var stratumSessions = Array(repeating: 0.0, count: data.stratumCount)
        for cell in data.cells { stratumSessions[cell.stratum] += data.recorded[cell.counter] }
        return options.candidate.steps.enumerated().map { index, step in
            let state = candidateStates[index]
            var observed: ObservedStep?
            if let baselineIndex = options.baseline.index(of: step.id) {
                let eligible = zip(sampler.strataEligibility, stratumSessions).reduce(0.0) {
                    $0 + ($1.0[baselineIndex] ? $1.1 : 0)
                }
                let recorded = forecaster.recordedPooled[Int(state)]
                let viewed = recorded?.viewers ?? 0
                observed = ObservedStep(
                    eligible: Int(eligible), viewed: Int(viewed),
                    conversionFromStart: eligible > 0 ? viewed / eligible : nil,
                    continuationRate: recorded.map { 1 - $0.drop },
                    timeOnStepMedian: Quantiles.quantile(sampler.secondsOnStep[baselineIndex].seconds, 0.5))
            }
            let eligible = outcome.eligible[index]
            let viewed = outcome.viewed[index]
            return StepForecast(
                step: step.id, condition: step.when?.source, source: assumed[state] != nil ? "assumed" : "recorded",
                eligible: Int(eligible.rounded()), viewed: viewed,
                conversionFromStart: Estimate(
                    value: eligible > 0 ? viewed / eligible : nil,
                    interval: percentileInterval(conversions[index], level: level)),
                droppedHere: outcome.dropped[index], skipped: outcome.skipped[index],
                continuationRate: viewed > 0 ? 1 - outcome.dropped[index] / viewed : nil, observed: observed)
        }
    }

    private static func assumptionTexts(options: SimulationOptions, data: SimulationData) -> [String] {
        let baseline = "'\(options.baseline.id)' v\(options.baseline.version)"
        let strata =
            options.stratify.map { "the same baseline conditions true and the same \($0)" }
            ?? "the same baseline conditions true"
        var texts = [
            "Each session of \(baseline) is replayed through the candidate's navigator with its own context; "
                + "the steps its context puts on the candidate's path are the ones it can view.",
            "On a step, the shares who drop, jump ahead and skip are those recorded for that step in \(baseline), "
                + "among sessions with \(strata) (\(data.stratumCount) strata); below "
                + "\(options.minimumObservations) viewers in a stratum, all strata are pooled.",
            "A step's behaviour does not depend on its position or on the steps before it; sessions that dropped "
                + "on a removed step go on to the next one; going back and re-viewing are not modelled.",
            "Only finished sessions are used: \(data.summary.inProgressSessions) in progress were left out.",
            "Intervals are \(Int((options.level * 100).rounded()))% percentile intervals of \(options.draws) "
                + "Poisson bootstrap draws over \(data.summary.users) users (a user's sessions stay together); "
                + "they cover sampling noise in the recorded data, not error in the model or in assumptions.",
        ]
        for (step, rate) in options.assumptions.sorted(by: { $0.key < $1.key }) {
            texts.append(
                "Step '\(step)': \(NumberText.percent(rate)) of its viewers go on (assumed by --assume, "
                    + "not estimated; no uncertainty is added for it).")
        }
        if let variant = options.variant {
            texts.append("Data: only sessions exposed to variant '\(variant.variant)' of '\(variant.experiment)'.")
        }
        return texts
    }
}
