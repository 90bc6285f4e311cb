import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Experiment statistics against independently computed reference values. Each value's source is
/// in the comment above it; "scipy" means SciPy 1.x run as `python3 -c "from scipy import stats; ..."`.
@Suite struct ExperimentStatisticsTests {
    @Test func twoProportionZTest() throws {
        // Control 200/1000, variant 240/1000. scipy: stats.chi2_contingency([[200,800],[240,760]],
        // correction=False) → p = 0.030837167828904243, √χ² = 2.1591675854376526 (the pooled z-test
        // and Pearson's 2×2 χ² test are the same test).
        let test = try #require(TwoProportionTest(successes1: 200, trials1: 1000, successes2: 240, trials2: 1000))
        #expect(abs(test.z - 2.1591675854376526) < 1e-12)
        #expect(abs(test.pValue - 0.030837167828904243) < 1e-12)
        #expect(TwoProportionTest(successes1: 0, trials1: 10, successes2: 0, trials2: 10) == nil)
    }

    @Test func chiSquaredTail() throws {
        // scipy: stats.chi2.sf(3.841458820694124, 1) = 0.05; sf(10, 3) = 0.01856613546304325;
        // sf(0.5, 4) = 0.9735009788392561.
        #expect(abs(try #require(ChiSquared.survival(3.841458820694124, degreesOfFreedom: 1)) - 0.05) < 1e-12)
        #expect(abs(try #require(ChiSquared.survival(10, degreesOfFreedom: 3)) - 0.01856613546304325) < 1e-12)
        #expect(abs(try #require(ChiSquared.survival(0.5, degreesOfFreedom: 4)) - 0.9735009788392561) < 1e-12)
    }

    @Test func sampleRatioMismatch() throws {
        // scipy: stats.chisquare([5080, 4920]) → statistic 2.56, p = 0.10959858339911568.
        let fine = try #require(ChiSquared.goodnessOfFit(observed: [5080, 4920], expectedShares: [0.5, 0.5]))
        #expect(abs(fine.statistic - 2.56) < 1e-9)
        #expect(abs(fine.pValue - 0.10959858339911568) < 1e-12)
        // scipy: stats.chisquare([10000, 10500]) → 12.195121951219512, p = 0.00047914643458730067 (< 0.001: SRM).
        let broken = try #require(ChiSquared.goodnessOfFit(observed: [10000, 10500], expectedShares: [1, 1]))
        #expect(abs(broken.pValue - 0.00047914643458730067) < 1e-13)
        // scipy: stats.chisquare([2100, 2950, 4950], f_exp=[2000, 3000, 5000]) → 6.333333333333333, p = 0.042143843509276406.
        let weighted = try #require(
            ChiSquared.goodnessOfFit(observed: [2100, 2950, 4950], expectedShares: [0.2, 0.3, 0.5]))
        #expect(abs(weighted.statistic - 6.333333333333333) < 1e-9)
        #expect(abs(weighted.pValue - 0.042143843509276406) < 1e-12)
    }

    @Test func bayesianChanceToBeatAndExpectedLoss() throws {
        // Beta(1,1) priors; control 200/1000 → Beta(201, 801), variant 240/1000 → Beta(241, 761).
        // Exact: scipy.integrate.quad(lambda x: stats.beta(201,801).pdf(x) * stats.beta(241,761).sf(x), 0, 1)
        //   = 0.9845373460239718.
        // Monte Carlo: numpy.random.default_rng(20240601), 4,000,000 draws each: P(B > A) = 0.98460125,
        //   E[max(A − B, 0)] = 0.000102026, E[max(B − A, 0)] = 0.040016519.
        // The normal approximation is within 0.002 of the exact value at these counts.
        let control = try #require(BetaDistribution.posterior(successes: 200, trials: 1000))
        let variant = try #require(BetaDistribution.posterior(successes: 240, trials: 1000))
        #expect(abs(variant.chanceToBeat(control) - 0.9845373460239718) < 0.002)
        #expect(abs(variant.expectedLoss(versus: control) - 0.000102026) < 0.00002)
        #expect(abs(control.expectedLoss(versus: variant) - 0.040016519) < 0.0002)
        #expect(abs(control.chanceToBeat(variant) + variant.chanceToBeat(control) - 1) < 1e-12)
        // Small counts, 30/100 vs 38/100: quad gives 0.8824192681771916; the approximation is cruder there.
        let small = try #require(BetaDistribution.posterior(successes: 38, trials: 100))
        let smallControl = try #require(BetaDistribution.posterior(successes: 30, trials: 100))
        #expect(abs(small.chanceToBeat(smallControl) - 0.8824192681771916) < 0.01)
    }

    @Test func holmAdjustment() {
        // By hand from Holm (1979): sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06,
        // 0.04 → made monotone: 0.02, 0.03, 0.06, 0.06; reported in the input order.
        let adjusted = Holm.adjust([0.01, 0.04, 0.03, 0.005])
        let expected = [0.03, 0.06, 0.06, 0.02]
        #expect(zip(adjusted, expected).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(Holm.adjust([0.6, 0.9]) == [1, 1])
        #expect(Holm.adjust([]) == [])
    }

    @Test func sampleSizePerArm() throws {
        // Fleiss's sample-size table (Statistical Methods for Rates and Proportions, n per group,
        // two-sided α = 0.05, power 0.80, with his continuity correction): p₁ = 0.10, p₂ = 0.20 → 219
        // (the corrected closed form in python gives 218.51 → 219 as well). The uncorrected closed form gives 198.96 → 199 (python with scipy.stats.norm.ppf).
        #expect(PowerAnalysis.sampleSizePerArm(baseline: 0.1, effect: 0.1) == 199)
        #expect(PowerAnalysis.sampleSizePerArm(baseline: 0.1, effect: 0.1, continuityCorrection: true) == 219)
        // Closed form in python (scipy.stats.norm.ppf): 0.30 → 0.32: 8393.20 → 8394; 0.20 → 0.18: 6038.53 → 6039.
        #expect(PowerAnalysis.sampleSizePerArm(baseline: 0.3, effect: 0.02) == 8394)
        #expect(PowerAnalysis.sampleSizePerArm(baseline: 0.2, effect: -0.02) == 6039)
        #expect(PowerAnalysis.sampleSizePerArm(baseline: 0.99, effect: 0.02) == nil)
    }

    @Test func reportFromSessionsInMemory() throws {
        // 1000 sessions per arm; control completes step "consent" 200 times, the variant 240 times.
        var sessions: [RecordedSession] = []
        for index in 0..<2000 {
            let variant = index < 1000 ? "control" : "short-copy"
            let converted = index < 1000 ? index < 200 : index - 1000 < 240
            var events = [
                RecordedEvent(
                    kind: .experimentExposure, flowID: "health-study", flowVersion: 1, stepID: nil,
                    name: "consent-copy", time: 1_000_000, seq: 1, properties: ["variant": .string(variant)])
            ]
            if converted {
                events.append(
                    RecordedEvent(
                        kind: .stepCompleted, flowID: "health-study", flowVersion: 1, stepID: "consent", name: nil,
                        time: 2_000_000, seq: 2, properties: [:]))
            }
            sessions.append(
                RecordedSession(
                    sessionID: UUID(), userID: "u\(index)", flowID: "health-study", flowVersion: 1, context: [:],
                    events: events))
        }
        var options = ExperimentOptions(key: "consent-copy")
        options.metrics = [.step("consent"), .completion]
        let report = try ExperimentAggregator(options: options).report(of: sessions)
        #expect(report.control == "control")
        #expect(report.variants == ["control", "short-copy"])
        #expect(report.units == 2000)
        #expect(report.sampleRatio.mismatch == false)
        let step = try #require(report.metrics.first)
        #expect(step.variants.map(\.conversions) == [200, 240])
        let comparison = try #require(step.comparisons.first)
        #expect(abs(try #require(comparison.absoluteDifference) - 0.04) < 1e-12)
        #expect(abs(try #require(comparison.relativeDifference) - 0.2) < 1e-12)
        // Same data as twoProportionZTest: p = 0.030837167828904243; Holm over 2 comparisons, the
        // other (completion: 0 vs 0) has no p-value and counts as 1 → adjusted 2p = 0.0617.
        #expect(abs(try #require(comparison.pValue) - 0.030837167828904243) < 1e-12)
        #expect(abs(try #require(comparison.adjustedPValue) - 2 * 0.030837167828904243) < 1e-12)
        #expect(comparison.significant == false)
        #expect(report.comparisons == 2)
        // Required per arm for 0.20 ± 0.02: max(6510, 6039) = 6510 (python closed form, above); 1000 per arm present.
        #expect(comparison.requiredUnitsPerArm == 6510)
        #expect(comparison.additionalUnitsPerArm == 5510)
        let json = try report.rendered(.json)
        #expect(json.contains("\"chance_to_beat_control\""))
        #expect(json.contains("\"metric\" : \"step:consent\""))
        #expect(try report.rendered(.text).contains("sample ratio ok"))
        #expect(try ExperimentOptions.Metric(parsing: "discovery:share") == .discovery("share"))
        #expect(throws: ExperimentError.self) { try ExperimentOptions.Metric(parsing: "steps:x") }
    }
}
