import Foundation
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// The result of an A/B test on onboarding: per variant units, conversions and rate; versus
/// control the absolute and relative difference with 95% intervals, the two-proportion z-test with
/// Holm-adjusted p-values, the Bayesian chance to beat control and expected loss, the sample size
/// per arm still needed to detect the minimum detectable effect; and a sample-ratio-mismatch test.
///
/// Methods, per metric and variant V against control C (rates p = conversions / eligible units):
/// - rate interval: Wilson score; absolute difference p_V − p_C: Newcombe's hybrid score interval;
///   relative difference p_V / p_C − 1: the log risk-ratio (Katz) interval.
/// - p-value: two-sided pooled two-proportion z-test; **adjusted p-value**: Holm's step-down
///   correction across every variant × metric comparison of the report; `significant` compares
///   the adjusted value with alpha.
/// - Bayesian: Beta(1, 1) priors, so posteriors Beta(1 + conversions, 1 + non-conversions);
///   chance to beat control and expected loss by the normal approximation of
///   ``BetaDistribution/chanceToBeat(_:)``.
/// - power: units per arm to detect an absolute change of `mde` from the control's rate
///   (two-sided alpha, given power; ``PowerAnalysis``); still needed = that minus the smaller arm.
/// - sample ratio: Pearson's χ² test of exposed units per variant against the experiment's
///   weights (equal without a stored definition); a mismatch below p = 0.001 means assignment or
///   exposure logging is broken and the comparisons should not be trusted.
///
/// JSON (``ReportJSON``, sorted snake_case keys) holds every figure whatever the engine.
public struct ExperimentReport: Sendable, Hashable, Codable {
    /// One variant's counts for a metric.
    public struct VariantRow: Sendable, Hashable, Codable {
        public var variant: String
        /// Units in the metric's denominator.
        public var units: Int
        public var conversions: Int
        /// conversions / units; `nil` without units.
        public var rate: Double?
        /// Wilson score interval of the rate.
        public var interval: ConfidenceInterval?
    }

    /// One variant against control for a metric.
    public struct Comparison: Sendable, Hashable, Codable {
        public var variant: String
        /// p_V − p_C.
        public var absoluteDifference: Double?
        /// Newcombe's interval of the absolute difference.
        public var absoluteInterval: ConfidenceInterval?
        /// p_V / p_C − 1.
        public var relativeDifference: Double?
        /// Katz's log risk-ratio interval, minus 1.
        public var relativeInterval: ConfidenceInterval?
        /// The pooled z statistic.
        public var z: Double?
        /// Two-sided p-value of the z-test.
        public var pValue: Double?
        /// Holm-adjusted across every comparison of the report.
        public var adjustedPValue: Double?
        /// Adjusted p-value below alpha.
        public var significant: Bool
        /// P(p_V > p_C) under Beta(1, 1) priors.
        public var chanceToBeatControl: Double?
        /// E[max(p_C − p_V, 0)]: the rate lost, on average, by shipping the variant.
        public var expectedLoss: Double?
        /// E[max(p_V − p_C, 0)]: the rate lost, on average, by keeping control.
        public var expectedLossOfControl: Double?
        /// Units per arm needed to detect ±mde from the control's rate.
        public var requiredUnitsPerArm: Int?
        /// Required minus the smaller of the two arms, at least 0.
        public var additionalUnitsPerArm: Int?
        /// With sequential testing: the always-valid (1 − alpha) interval of p_V − p_C.
        public var sequentialInterval: ConfidenceInterval?
        /// With sequential testing: the always-valid p-value (what Holm then adjusts).
        public var sequentialPValue: Double?
    }

    /// How the sequential results were computed.
    public struct Sequential: Sendable, Hashable, Codable {
        /// The method, in words.
        public var method: String
        /// N*, the total units the boundary is tuned for.
        public var tuning: Double
        /// The mixture's ρ.
        public var rho: Double
        /// How many looks the intervals and p-values tolerate: "any".
        public var looks: String
    }

    /// The figures of one metric.
    public struct MetricResult: Sendable, Hashable, Codable {
        public var metric: ExperimentOptions.Metric
        /// Control first.
        public var variants: [VariantRow]
        /// One per non-control variant.
        public var comparisons: [Comparison]
    }

    /// The sample-ratio-mismatch test.
    public struct SampleRatio: Sendable, Hashable, Codable {
        /// Exposed units per variant (report order).
        public var observed: [Int]
        /// Expected shares per variant.
        public var expectedShares: [Double]
        public var statistic: Double?
        public var pValue: Double?
        /// p-value below ``threshold``.
        public var mismatch: Bool
        /// 0.001.
        public var threshold: Double
    }

    public var key: String
    public var control: String
    /// Variant names, control first.
    public var variants: [String]
    public var engine: ExperimentOptions.Engine
    public var unit: FunnelOptions.Unit
    public var level: Double
    public var alpha: Double
    public var power: Double
    public var mde: Double
    public var windowSeconds: Double
    public var since: Date?
    public var until: Date?
    /// Exposed units counted.
    public var units: Int
    /// Users exposed to more than one variant, left out (per user only).
    public var mixedUnits: Int
    public var sampleRatio: SampleRatio
    /// Comparisons in Holm's family (variants − 1) × metrics.
    public var comparisons: Int
    public var metrics: [MetricResult]
    /// Set with sequential testing: the method and its tuning.
    public var sequential: Sequential? = nil
    /// How `adjusted_p_value` corrects for the comparisons: Holm (the default) or Benjamini–Hochberg.
    public var correction: MultipleComparisonCorrection = .holm
    /// The `funnel:FLOW` metrics, step by step (their tests are the `reached:STEP` metrics above).
    public var funnels: [FunnelResult]? = nil

    /// One `funnel:FLOW` metric: per variant and step, units that reached it over every exposed
    /// unit (one denominator, so the rates compare randomized groups), and the step-to-step rates
    /// for reading only.
    public struct FunnelResult: Sendable, Hashable, Codable {
        /// Per variant, per step.
        public struct Row: Sendable, Hashable, Codable {
            public var variant: String
            /// Exposed units: the denominator of every step.
            public var units: Int
            public var reached: [Int]
            /// reached / units.
            public var rates: [Double?]
            /// reached / reached at the last earlier step without a condition (the first: reached /
            /// units); no test.
            public var stepToStep: [Double?]
        }

        public var flow: String
        public var steps: [String]
        public var variants: [Row]
        /// Why step-to-step rates carry no p-value.
        public var note: String
    }

    /// Why step-to-step rates are not tested.
    public static let stepToStepNote =
        "Step-to-step rates are shown without p-values: the units reaching a step are a post-treatment "
        + "subset that the variant itself changes, so comparing those rates across variants is biased. "
        + "The tests above use every exposed unit as the denominator of each step."
}

extension ExperimentReport {
    /// One `funnel:FLOW` metric's steps per variant, from its expanded metrics' counts.
    static func funnelResult(
        _ funnel: ExperimentOptions.FunnelMetric, names: [String], counts: [String: ExperimentAggregator.Counts],
        empty: ExperimentAggregator.Counts
    ) -> FunnelResult {
        let rows = names.map { name in
            let row = counts[name] ?? empty
            let reached = funnel.metricIndices.map { row.conversions[$0] }
            let units = row.units
            let rates = reached.map { units > 0 ? Double($0) / Double(units) : nil }
            // Against the last step before it that every unit passes: a conditional step is skipped
            // by those it does not apply to, so it is no one's "previous step".
            let steps = reached.indices.map { index -> Double? in
                let previous = (0..<index).last { !funnel.conditional[$0] }
                let before = previous.map { reached[$0] } ?? units
                return before > 0 ? Double(reached[index]) / Double(before) : nil
            }
            return FunnelResult.Row(variant: name, units: units, reached: reached, rates: rates, stepToStep: steps)
        }
        return FunnelResult(flow: funnel.flowID, steps: funnel.steps, variants: rows, note: stepToStepNote)
    }

    /// The p-value below which a sample ratio is flagged as a mismatch.
    public static let sampleRatioThreshold = 0.001

    static func make(
        counts: [String: ExperimentAggregator.Counts], mixed: Int, options: ExperimentOptions,
        correction: MultipleComparisonCorrection = .holm
    ) -> ExperimentReport {
        let names = variantOrder(seen: Set(counts.keys), experiment: options.experiment)
        let control = names.first ?? ""
        let level = 0.95
        let empty = ExperimentAggregator.Counts(
            eligible: Array(repeating: 0, count: options.metrics.count),
            conversions: Array(repeating: 0, count: options.metrics.count))
        var metrics: [MetricResult] = []
        for (index, metric) in options.metrics.enumerated() {
            let rows = names.map { name in
                let row = counts[name] ?? empty
                let units = row.eligible[index]
                let conversions = row.conversions[index]
                return VariantRow(
                    variant: name, units: units, conversions: conversions,
                    rate: units > 0 ? Double(conversions) / Double(units) : nil,
                    interval: ConfidenceInterval.wilson(successes: conversions, trials: units, level: level))
            }
            let comparisons = rows.dropFirst().map {
                compare($0, against: rows[0], options: options, level: level)
            }
            metrics.append(MetricResult(metric: metric, variants: rows, comparisons: comparisons))
        }
        // Holm (or Benjamini–Hochberg) across every comparison of every metric: a family of
        // (variants − 1) × metrics.
        var family: [(Int, Int)] = []
        var pValues: [Double] = []
        for (m, result) in metrics.enumerated() {
            for (c, comparison) in result.comparisons.enumerated() {
                family.append((m, c))
                pValues.append((options.sequential ? comparison.sequentialPValue : comparison.pValue) ?? 1)
            }
        }
        let tested = { (m: Int, c: Int) in
            (options.sequential ? metrics[m].comparisons[c].sequentialPValue : metrics[m].comparisons[c].pValue) != nil
        }
        for ((m, c), adjusted) in zip(family, correction.adjust(pValues)) where tested(m, c) {
            metrics[m].comparisons[c].adjustedPValue = adjusted
            metrics[m].comparisons[c].significant = adjusted < options.alpha
        }
        let observed = names.map { counts[$0]?.units ?? 0 }
        let shares = expectedShares(names: names, experiment: options.experiment)
        let fit = ChiSquared.goodnessOfFit(observed: observed, expectedShares: shares)
        return ExperimentReport(
            key: options.key, control: control, variants: names, engine: options.engine, unit: options.unit,
            level: level, alpha: options.alpha, power: options.power, mde: options.mde,
            windowSeconds: options.window, since: options.since, until: options.until,
            units: observed.reduce(0, +), mixedUnits: mixed,
            sampleRatio: SampleRatio(
                observed: observed, expectedShares: shares, statistic: fit?.statistic, pValue: fit?.pValue,
                mismatch: (fit?.pValue ?? 1) < sampleRatioThreshold, threshold: sampleRatioThreshold),
            comparisons: family.count, metrics: metrics,
            sequential: options.sequential
                ? Sequential(
                    method: Self.sequentialMethod, tuning: options.sequentialTuning,
                    rho: MixtureSequentialTest.rho(alpha: options.alpha, tuning: options.sequentialTuning),
                    looks: "any")
                : nil, correction: correction,
            funnels: options.funnels.isEmpty
                ? nil : options.funnels.map { funnelResult($0, names: names, counts: counts, empty: empty) })
    }

    /// The sequential method in words, as reports state it.
    public static let sequentialMethod =
        "mixture SPRT (normal mixture, asymptotic confidence sequence of Waudby-Smith et al. 2023, as GrowthBook): "
        + "always-valid intervals and p-values for the absolute difference, valid at any number of looks"

    /// The stored order (control first) plus any other variant seen; without a definition,
    /// "control" first if seen, else the first name in order.
    static func variantOrder(seen: Set<String>, experiment: ExperimentDefinition?) -> [String] {
        if let experiment {
            let declared = experiment.variants.map(\.name)
            return declared + seen.subtracting(declared).sorted()
        }
        let sorted = seen.sorted()
        guard sorted.contains("control") else { return sorted }
        return ["control"] + sorted.filter { $0 != "control" }
    }

    /// The definition's effective weights for its variants; a tiny share for variants it does not
    /// declare (seen in the data anyway, itself a sign of broken assignment); equal shares without
    /// a definition.
    static func expectedShares(names: [String], experiment: ExperimentDefinition?) -> [Double] {
        guard let experiment else { return names.map { _ in 1 } }
        let weights = Dictionary(
            zip(experiment.variants.map(\.name), experiment.effectiveWeights), uniquingKeysWith: { first, _ in first })
        return names.map { max(weights[$0] ?? 0, 1e-9) }
    }

    static func compare(_ variant: VariantRow, against control: VariantRow, options: ExperimentOptions, level: Double)
        -> Comparison
    {
        var result = Comparison(variant: variant.variant, significant: false)
        guard let rate = variant.rate, let base = control.rate else { return result }
        result.absoluteDifference = rate - base
        result.absoluteInterval = ConfidenceInterval.newcombeDifference(
            successes1: variant.conversions, trials1: variant.units, successes2: control.conversions,
            trials2: control.units, level: level)
        if base > 0 {
            result.relativeDifference = rate / base - 1
            if variant.conversions > 0, let z = NormalDistribution.criticalValue(level: level) {
                // Katz: ln(RR) ± z·√(1/x₁ − 1/n₁ + 1/x₂ − 1/n₂).
                let logRatio = log(rate / base)
                let se =
                    (1 / Double(variant.conversions) - 1 / Double(variant.units) + 1
                    / Double(control.conversions) - 1 / Double(control.units)).squareRoot()
                result.relativeInterval = ConfidenceInterval(
                    lower: exp(logRatio - z * se) - 1, upper: exp(logRatio + z * se) - 1, level: level)
            }
        }
        if let test = TwoProportionTest(
            successes1: control.conversions, trials1: control.units, successes2: variant.conversions,
            trials2: variant.units)
        {
            result.z = test.z
            result.pValue = test.pValue
        }
        if options.sequential,
            let test = MixtureSequentialTest(
                successes1: control.conversions, trials1: control.units, successes2: variant.conversions,
                trials2: variant.units, alpha: options.alpha, tuning: options.sequentialTuning)
        {
            result.sequentialInterval = test.interval
            result.sequentialPValue = test.pValue
        }
        if let posterior = BetaDistribution.posterior(successes: variant.conversions, trials: variant.units),
            let baseline = BetaDistribution.posterior(successes: control.conversions, trials: control.units)
        {
            result.chanceToBeatControl = posterior.chanceToBeat(baseline)
            result.expectedLoss = posterior.expectedLoss(versus: baseline)
            result.expectedLossOfControl = baseline.expectedLoss(versus: posterior)
        }
        // Detecting a rise or a fall of mde: the larger of the two sample sizes (variance peaks at 0.5).
        let sizes = [options.mde, -options.mde].compactMap {
            PowerAnalysis.sampleSizePerArm(baseline: base, effect: $0, alpha: options.alpha, power: options.power)
        }
        if let required = sizes.max() {
            result.requiredUnitsPerArm = required
            result.additionalUnitsPerArm = max(0, required - min(variant.units, control.units))
        }
        return result
    }
}
