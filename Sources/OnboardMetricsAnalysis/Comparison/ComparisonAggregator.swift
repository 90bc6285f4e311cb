import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// Counts replayed sessions of two cohorts into a ``ComparisonReport``. Per cohort it keeps the
/// funnel counters and, per step, the times on step (for medians and the rank test).
public struct ComparisonAggregator: Sendable {
    struct Counts {
        var started = 0
        var inProgress = 0
        var completed = 0
        var eligible: [Int]
        var entered: [Int]
        var converted: [Int]
        var viewed: [Int]
        var skipped: [Int]
        var onStep: [DurationSamples]

        init(stepCount: Int) {
            eligible = Array(repeating: 0, count: stepCount)
            entered = eligible
            converted = eligible
            viewed = eligible
            skipped = eligible
            onStep = Array(repeating: DurationSamples(), count: stepCount)
        }
    }

    let flow: FlowDefinition
    let options: ComparisonOptions
    let replay: FunnelReplay
    let reportEnd: Date
    var selection: SessionSelection
    var a: Counts
    var b: Counts

    public init(flow: FlowDefinition, options: ComparisonOptions, now: Date) {
        self.flow = flow
        self.options = options
        var funnel = options.funnel
        funnel.unit = .session
        // The property's value comes out of the replay as its breakdown.
        if case .property(let name, _) = options.a { funnel.breakdown = name } else { funnel.breakdown = nil }
        let end = funnel.reportEnd ?? funnel.until ?? now
        reportEnd = end
        replay = FunnelReplay(flow: flow, options: funnel, reportEnd: RecordedEvent.microseconds(end))
        selection = SessionSelection(flowID: flow.id, since: funnel.since, until: funnel.until)
        a = Counts(stepCount: flow.steps.count)
        b = Counts(stepCount: flow.steps.count)
    }

    private func belongs(_ state: FunnelUnitState, to cohort: ComparisonOptions.Cohort) -> Bool {
        switch cohort {
        case .started(let since, let until):
            if let since, state.start < RecordedEvent.microseconds(since) { return false }
            if let until, state.start >= RecordedEvent.microseconds(until) { return false }
            return true
        case .property(_, let value): return state.breakdown == value
        }
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        let state = replay.replay(session)
        if belongs(state, to: options.a) { Self.count(state, into: &a, steps: flow.steps.count) }
        if belongs(state, to: options.b) { Self.count(state, into: &b, steps: flow.steps.count) }
    }

    private static func count(_ state: FunnelUnitState, into counts: inout Counts, steps: Int) {
        counts.started += 1
        guard state.status != .inProgress else {
            counts.inProgress += 1
            return
        }
        if state.status == .completed { counts.completed += 1 }
        var previousViewed = true  // the start
        for index in 0..<steps where state.eligible[index] {
            counts.eligible[index] += 1
            if previousViewed {
                counts.entered[index] += 1
                if state.viewed[index] { counts.converted[index] += 1 }
            }
            if state.viewed[index] { counts.viewed[index] += 1 }
            if state.skipped[index] { counts.skipped[index] += 1 }
            if state.microsecondsOnStep[index] != FunnelUnitState.none {
                counts.onStep[index].append(microseconds: state.microsecondsOnStep[index])
            }
            previousViewed = state.viewed[index]
        }
    }

    public func report() -> ComparisonReport {
        let level = 1 - options.alpha
        let settledA = a.started - a.inProgress
        let settledB = b.started - b.inProgress
        var rows = flow.steps.indices.map { index in
            // Each cohort's durations in seconds once: its summary and the rank test both read them.
            let aTimes = a.onStep[index].seconds
            let bTimes = b.onStep[index].seconds
            return makeRow(
                step: flow.steps[index].id,
                a: cohortRow(a, index: index, times: aTimes, level: level),
                b: cohortRow(b, index: index, times: bTimes, level: level), aTimes: aTimes, bTimes: bTimes)
        }
        let completion = { (counts: Counts, settled: Int) in
            ComparisonReport.CohortRow(
                eligible: settled, entered: settled, converted: counts.completed,
                conversion: settled > 0 ? Double(counts.completed) / Double(settled) : nil,
                interval: ConfidenceInterval.wilson(successes: counts.completed, trials: settled, level: level),
                viewed: 0, skipped: 0, skipRate: nil, timeOnStep: DurationSummary([]))
        }
        rows.append(
            makeRow(
                step: ComparisonReport.completionRow, a: completion(a, settledA), b: completion(b, settledB),
                aTimes: [], bTimes: []))
        // Holm (or Benjamini–Hochberg) across the rows that have a test.
        let tested = rows.indices.filter { rows[$0].pValue != nil }
        let adjusted = options.correction.adjust(tested.compactMap { rows[$0].pValue })
        for (index, value) in zip(tested, adjusted) {
            rows[index].adjustedPValue = value
            rows[index].significant = value < options.alpha
            if let threshold = options.regressionThreshold, let difference = rows[index].difference {
                rows[index].regression = rows[index].significant && difference < -threshold
            }
        }
        // Sample sizes at the strictest Holm level, alpha / rows.
        let family = max(1, tested.count)
        var warnings: [String] = []
        for index in rows.indices {
            guard let base = rows[index].a.conversion else { continue }
            let drop = options.detectableDrop
            guard base - drop > 0,
                let required = PowerAnalysis.sampleSizePerArm(
                    baseline: base, effect: -drop, alpha: options.alpha / Double(family), power: options.power)
            else { continue }
            rows[index].requiredPerCohort = required
            let smaller = min(rows[index].a.entered, rows[index].b.entered)
            if smaller < required {
                rows[index].underpowered = true
                warnings.append(
                    "\(rows[index].step): \(smaller) sessions in the smaller cohort, \(required) needed to detect a "
                        + String(format: "%.1f", drop * 100)
                        + "-point drop from \(NumberText.percent(base)) (alpha \(options.alpha)/\(family), power "
                        + "\(Int((options.power * 100).rounded()))%)")
            }
        }
        if a.started == 0 { warnings.append("cohort A (\(options.a)) has no sessions") }
        if b.started == 0 { warnings.append("cohort B (\(options.b)) has no sessions") }
        let regressions = rows.filter(\.regression).map(\.step)
        return ComparisonReport(
            flowID: flow.id, flowVersion: flow.version,
            a: .init(cohort: options.a.description, started: a.started, inProgress: a.inProgress),
            b: .init(cohort: options.b.description, started: b.started, inProgress: b.inProgress),
            windowSeconds: options.funnel.window, inactivitySeconds: options.funnel.inactivity, reportEnd: reportEnd,
            alpha: options.alpha, level: level, power: options.power,
            regressionThreshold: options.regressionThreshold, detectableDrop: options.detectableDrop,
            comparisons: tested.count, rows: rows, regressions: regressions,
            passed: options.regressionThreshold == nil ? nil : regressions.isEmpty, warnings: warnings,
            methods: ComparisonReport.methods(options.correction), correction: options.correction)
    }

    /// - Parameter times: the cohort's durations on the step, in seconds.
    private func cohortRow(_ counts: Counts, index: Int, times: [Double], level: Double) -> ComparisonReport.CohortRow {
        let entered = counts.entered[index]
        let converted = counts.converted[index]
        let viewed = counts.viewed[index]
        let skipped = counts.skipped[index]
        return ComparisonReport.CohortRow(
            eligible: counts.eligible[index], entered: entered, converted: converted,
            conversion: entered > 0 ? Double(converted) / Double(entered) : nil,
            interval: ConfidenceInterval.wilson(successes: converted, trials: entered, level: level),
            viewed: viewed, skipped: skipped, skipRate: viewed > 0 ? Double(skipped) / Double(viewed) : nil,
            timeOnStep: DurationSummary(times))
    }

    private func makeRow(
        step: String, a: ComparisonReport.CohortRow, b: ComparisonReport.CohortRow, aTimes: [Double],
        bTimes: [Double]
    ) -> ComparisonReport.Row {
        let level = 1 - options.alpha
        var row = ComparisonReport.Row(
            step: step, a: a, b: b, significant: false, regression: false, underpowered: false)
        if let rateA = a.conversion, let rateB = b.conversion {
            row.difference = rateB - rateA
            row.differenceInterval = ConfidenceInterval.newcombeDifference(
                successes1: b.converted, trials1: b.entered, successes2: a.converted, trials2: a.entered, level: level)
            if let test = TwoProportionTest(
                successes1: a.converted, trials1: a.entered, successes2: b.converted, trials2: b.entered)
            {
                row.z = test.z
                row.pValue = test.pValue
            } else {
                // Both cohorts at 0 % or 100 %: nothing changed.
                row.pValue = 1
            }
        }
        if let skipA = a.skipRate, let skipB = b.skipRate {
            row.skipRateDifference = skipB - skipA
            row.skipRateInterval = ConfidenceInterval.newcombeDifference(
                successes1: b.skipped, trials1: b.viewed, successes2: a.skipped, trials2: a.viewed, level: level)
            row.skipRatePValue =
                TwoProportionTest(successes1: a.skipped, trials1: a.viewed, successes2: b.skipped, trials2: b.viewed)?
                .pValue
        }
        if let medianA = a.timeOnStep.median, let medianB = b.timeOnStep.median {
            row.timeOnStepMedianDifference = medianB - medianA
            row.timeOnStepPValue = MannWhitneyTest(bTimes, aTimes)?.pValue
        }
        return row
    }
}
