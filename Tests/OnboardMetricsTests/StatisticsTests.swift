import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Reference values computed independently of this code: SciPy 1.x (`scipy.stats.norm`) and the
/// published tables of Newcombe (1998), "Two-sided confidence intervals for the single proportion:
/// comparison of seven methods" (Stat Med 17:857–872, Table I, method 3 = Wilson score) and
/// "Interval estimation for the difference between independent proportions: comparison of eleven
/// methods" (Stat Med 17:873–890, Table II, method 10 = hybrid score).
@Suite struct StatisticsTests {
    struct Quantile: Sendable {
        var p: Double
        var z: Double
    }

    // scipy.stats.norm.ppf(p), SciPy 1.x.
    static let quantiles: [Quantile] = [
        Quantile(p: 0.975, z: 1.959963984540054), Quantile(p: 0.5, z: 0), Quantile(p: 0.001, z: -3.090232306167813),
        Quantile(p: 0.9, z: 1.2815515655446004), Quantile(p: 1e-10, z: -6.361340902404056),
        Quantile(p: 0.995, z: 2.5758293035489004),
    ]

    @Test(arguments: quantiles) func normalQuantileMatchesSciPy(_ row: Quantile) throws {
        let z = try #require(NormalDistribution.quantile(row.p))
        #expect(abs(z - row.z) < 1e-12)
        // And the CDF inverts it.
        #expect(abs(NormalDistribution.cdf(row.z) - row.p) < 1e-14 * max(1, row.p / 1e-10))
    }

    @Test func normalCDFMatchesSciPy() {
        // scipy.stats.norm.cdf(x), SciPy 1.x.
        let reference: [(Double, Double)] = [
            (0, 0.5), (1.96, 0.9750021048517795), (-1, 0.15865525393145707), (3.5, 0.9997673709209645),
            (-8, 6.22096057427174e-16),
        ]
        for (x, p) in reference {
            #expect(abs(NormalDistribution.cdf(x) - p) <= 1e-15 + 1e-12 * p, "cdf(\(x))")
        }
    }

    @Test func quantileRejectsProbabilitiesOutsideTheOpenUnitInterval() {
        #expect(NormalDistribution.quantile(0) == nil)
        #expect(NormalDistribution.quantile(1) == nil)
        #expect(NormalDistribution.quantile(-0.5) == nil)
        #expect(NormalDistribution.quantile(.nan) == nil)
        #expect(NormalDistribution.criticalValue(level: 1) == nil)
    }

    struct WilsonCase: Sendable {
        var successes: Int
        var trials: Int
        var lower: Double
        var upper: Double
    }

    // Newcombe (1998a) Table I, method 3 (Wilson score, no continuity correction), 95 %; four
    // decimals as published. Cross-checked with the closed form evaluated in Python using
    // z = scipy.stats.norm.ppf(0.975): 81/263 → 0.2552885198782742, 0.36620957698280004.
    static let wilsonCases: [WilsonCase] = [
        WilsonCase(successes: 81, trials: 263, lower: 0.2553, upper: 0.3662),
        WilsonCase(successes: 15, trials: 148, lower: 0.0624, upper: 0.1605),
        WilsonCase(successes: 0, trials: 20, lower: 0, upper: 0.1611),
        WilsonCase(successes: 1, trials: 29, lower: 0.0061, upper: 0.1718),
        WilsonCase(successes: 29, trials: 29, lower: 0.8830, upper: 1),
    ]

    @Test(arguments: wilsonCases) func wilsonMatchesNewcombeTableI(_ row: WilsonCase) throws {
        let interval = try #require(ConfidenceInterval.wilson(successes: row.successes, trials: row.trials))
        #expect(abs(interval.lower - row.lower) < 0.00005)
        #expect(abs(interval.upper - row.upper) < 0.00005)
        #expect(interval.level == 0.95)
    }

    @Test func wilsonMatchesTheFullPrecisionComputation() throws {
        // Python: closed form with z = scipy.stats.norm.ppf(0.975).
        let interval = try #require(ConfidenceInterval.wilson(successes: 81, trials: 263))
        #expect(abs(interval.lower - 0.2552885198782742) < 1e-13)
        #expect(abs(interval.upper - 0.36620957698280004) < 1e-13)
    }

    @Test func wilsonRefusesImpossibleCounts() {
        #expect(ConfidenceInterval.wilson(successes: 0, trials: 0) == nil)
        #expect(ConfidenceInterval.wilson(successes: 5, trials: 4) == nil)
        #expect(ConfidenceInterval.wilson(successes: -1, trials: 4) == nil)
        #expect(ConfidenceInterval.wilson(successes: 1, trials: 4, level: 1.5) == nil)
    }

    @Test func widerLevelGivesAWiderInterval() throws {
        let narrow = try #require(ConfidenceInterval.wilson(successes: 30, trials: 100, level: 0.9))
        let wide = try #require(ConfidenceInterval.wilson(successes: 30, trials: 100, level: 0.99))
        #expect(wide.lower < narrow.lower && narrow.upper < wide.upper)
        #expect(wide.contains(0.3) && narrow.contains(0.3))
    }

    struct DifferenceCase: Sendable {
        var s1: Int
        var n1: Int
        var s2: Int
        var n2: Int
        var lower: Double
        var upper: Double
    }

    // Newcombe (1998b) Table II, method 10 (hybrid score, no continuity correction), 95 %; the
    // published four decimals, also reproduced in Python from Wilson bounds with
    // z = scipy.stats.norm.ppf(0.975) (56/70 − 48/80 → 0.052431472402365065, 0.333872654036906).
    static let differenceCases: [DifferenceCase] = [
        DifferenceCase(s1: 56, n1: 70, s2: 48, n2: 80, lower: 0.0524, upper: 0.3339),
        DifferenceCase(s1: 9, n1: 10, s2: 3, n2: 10, lower: 0.1705, upper: 0.8090),
        DifferenceCase(s1: 6, n1: 7, s2: 2, n2: 7, lower: 0.0582, upper: 0.8062),
        DifferenceCase(s1: 5, n1: 56, s2: 0, n2: 29, lower: -0.0381, upper: 0.1926),
        DifferenceCase(s1: 0, n1: 10, s2: 0, n2: 20, lower: -0.1611, upper: 0.2775),
        DifferenceCase(s1: 10, n1: 10, s2: 0, n2: 20, lower: 0.6791, upper: 1),
    ]

    @Test(arguments: differenceCases) func newcombeMatchesTableII(_ row: DifferenceCase) throws {
        let interval = try #require(
            ConfidenceInterval.newcombeDifference(
                successes1: row.s1, trials1: row.n1, successes2: row.s2, trials2: row.n2))
        #expect(abs(interval.lower - row.lower) < 0.00005)
        #expect(abs(interval.upper - row.upper) < 0.00005)
    }

    @Test func newcombeMatchesTheFullPrecisionComputation() throws {
        let interval = try #require(
            ConfidenceInterval.newcombeDifference(successes1: 56, trials1: 70, successes2: 48, trials2: 80))
        #expect(abs(interval.lower - 0.052431472402365065) < 1e-13)
        #expect(abs(interval.upper - 0.333872654036906) < 1e-13)
    }

    @Test func newcombeIsAntisymmetric() throws {
        let forward = try #require(
            ConfidenceInterval.newcombeDifference(successes1: 9, trials1: 10, successes2: 3, trials2: 10))
        let backward = try #require(
            ConfidenceInterval.newcombeDifference(successes1: 3, trials1: 10, successes2: 9, trials2: 10))
        #expect(abs(forward.lower + backward.upper) < 1e-15)
        #expect(abs(forward.upper + backward.lower) < 1e-15)
        #expect(ConfidenceInterval.newcombeDifference(successes1: 1, trials1: 0, successes2: 0, trials2: 3) == nil)
    }
}
