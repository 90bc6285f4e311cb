import Foundation
import Testing

@testable import OnboardMetricsStatistics

/// The mixture SPRT (always-valid intervals and p-values) and the Mann-Whitney test, against
/// values computed independently by scripts/reference/statistics_reference.py: the e-value
/// integrated numerically as the N(0, ρ²) mixture of Gaussian likelihood ratios (SciPy quad),
/// the interval bounds found by root-finding on that integral (brentq), and Mann-Whitney by
/// SciPy's `mannwhitneyu(method="asymptotic", use_continuity=True)`. The sequential coverage is
/// checked by simulation with peeking after every batch.
@Suite struct SequentialStatisticsTests {
    struct Reference: Sendable, CustomStringConvertible {
        var x1: Int, n1: Int, x2: Int, n2: Int, alpha: Double, tuning: Double
        var rho: Double, lower: Double, upper: Double, p: Double
        var description: String { "\(x1)/\(n1) vs \(x2)/\(n2), α \(alpha), N* \(tuning)" }
    }

    static let references: [Reference] = [
        .init(
            x1: 500, n1: 5000, x2: 560, n2: 5000, alpha: 0.05, tuning: 5000, rho: 0.0398400667714,
            lower: -0.00684517660862, upper: 0.0308451766086, p: 0.687482155781),
        .init(
            x1: 40, n1: 200, x2: 55, n2: 210, alpha: 0.05, tuning: 5000, rho: 0.0398400667714,
            lower: -0.106430116885, upper: 0.230239640695, p: 0.828273428119),
        .init(
            x1: 3000, n1: 20000, x2: 3100, n2: 20000, alpha: 0.05, tuning: 5000, rho: 0.0398400667714,
            lower: -0.0065475845407, upper: 0.0165475845407, p: 1),
        .init(
            x1: 120, n1: 1000, x2: 150, n2: 1000, alpha: 0.1, tuning: 1000, rho: 0.0795541300329,
            lower: -0.0126123325985, upper: 0.0726123325985, p: 0.61754661965),
        .init(
            x1: 500, n1: 5000, x2: 650, n2: 5000, alpha: 0.05, tuning: 5000, rho: 0.0398400667714,
            lower: 0.0104880357478, upper: 0.0495119642522, p: 0.00012232196634),
    ]

    @Test(arguments: references)
    func mixtureSPRTMatchesNumericalMixture(reference: Reference) throws {
        let test = try #require(
            MixtureSequentialTest(
                successes1: reference.x1, trials1: reference.n1, successes2: reference.x2, trials2: reference.n2,
                alpha: reference.alpha, tuning: reference.tuning))
        #expect(abs(test.rho - reference.rho) < 1e-10)
        #expect(abs(test.interval.lower - reference.lower) < 1e-8)
        #expect(abs(test.interval.upper - reference.upper) < 1e-8)
        #expect(abs(test.pValue - reference.p) < 1e-7)
        // p < α exactly when the interval excludes 0.
        #expect((test.pValue < reference.alpha) == !test.interval.contains(0))
    }

    @Test func sequentialIntervalIsWiderThanFixedHorizon() throws {
        let sequential = try #require(
            MixtureSequentialTest(successes1: 500, trials1: 5000, successes2: 560, trials2: 5000))
        let fixed = try #require(
            ConfidenceInterval.newcombeDifference(successes1: 560, trials1: 5000, successes2: 500, trials2: 5000))
        #expect(sequential.interval.upper - sequential.interval.lower > fixed.upper - fixed.lower)
        #expect(MixtureSequentialTest(successes1: 0, trials1: 10, successes2: 0, trials2: 10) == nil)
        #expect(MixtureSequentialTest(successes1: 1, trials1: 0, successes2: 0, trials2: 10) == nil)
    }

    /// Under no difference (both arms 20 %), an analyst who looks after every 100 units per arm,
    /// up to 5,000 per arm (50 looks), and stops at the first interval that excludes 0: the
    /// share of runs whose interval ever misses the true difference stays at most α = 5 %. The
    /// same peeking with fixed-horizon 95 % intervals misses far more often. 400 runs, seed 18:
    /// the bound 5 % + 2.5 binomial standard errors (≈ 7.7 %) leaves room for simulation noise.
    @Test func coverageHoldsUnderContinuousPeeking() {
        var random = SplitMix64(seed: 18)
        let runs = 400
        var sequentialMisses = 0
        var fixedMisses = 0
        for _ in 0..<runs {
            var x1 = 0
            var x2 = 0
            var n = 0
            var sequentialMissed = false
            var fixedMissed = false
            for _ in 0..<50 {
                for _ in 0..<100 {
                    if Double.random(in: 0..<1, using: &random) < 0.2 { x1 += 1 }
                    if Double.random(in: 0..<1, using: &random) < 0.2 { x2 += 1 }
                }
                n += 100
                if let test = MixtureSequentialTest(successes1: x1, trials1: n, successes2: x2, trials2: n),
                    !test.interval.contains(0)
                {
                    sequentialMissed = true
                }
                if let test = TwoProportionTest(successes1: x1, trials1: n, successes2: x2, trials2: n),
                    test.pValue < 0.05
                {
                    fixedMissed = true
                }
            }
            if sequentialMissed { sequentialMisses += 1 }
            if fixedMissed { fixedMisses += 1 }
        }
        let bound = 0.05 + 2.5 * (0.05 * 0.95 / Double(runs)).squareRoot()
        #expect(Double(sequentialMisses) / Double(runs) <= bound, "sequential misses \(sequentialMisses)/\(runs)")
        #expect(Double(fixedMisses) / Double(runs) > 0.1, "peeking at fixed-horizon tests: \(fixedMisses)/\(runs)")
    }

    @Test func mannWhitneyMatchesSciPy() throws {
        let first = try #require(
            MannWhitneyTest([1.5, 2.0, 2.0, 3.1, 4.2, 7.0, 9.5], [0.5, 1.0, 2.0, 2.2, 2.5, 3.0]))
        #expect(first.u == 31)
        #expect(abs(first.pValue - 0.172359398961) < 1e-9)
        let second = try #require(MannWhitneyTest([10, 12, 12, 15, 20, 30, 31, 45], [5, 6, 6, 7, 12, 13]))
        #expect(second.u == 43)
        #expect(abs(second.pValue - 0.0163248126148) < 1e-9)
        #expect(MannWhitneyTest([], [1]) == nil)
        #expect(MannWhitneyTest([2, 2], [2, 2]) == nil)
    }
}
