import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsStatistics

/// `funnel experiment --correction`: the adjusted p-values of a two-comparison family follow
/// the textbook formulas (m = 2, p₁ ≤ p₂): Holm adj₁ = 2p₁, adj₂ = max(adj₁, p₂); Benjamini–
/// Hochberg adj₁ = min(2p₁, p₂), adj₂ = p₂.
@Suite struct ExperimentCorrectionTests {
    /// Control and one treatment, two metrics: 500/1000 and 545, 550 of 1000 (two p-values near 0.03).
    static func report(_ correction: MultipleComparisonCorrection) -> ExperimentReport {
        var options = ExperimentOptions(key: "copy")
        options.metrics = [.completion, .step("consent")]
        let counts = [
            "control": ExperimentAggregator.Counts(units: 1000, eligible: [1000, 1000], conversions: [500, 500]),
            "treatment": ExperimentAggregator.Counts(units: 1000, eligible: [1000, 1000], conversions: [545, 550]),
        ]
        return ExperimentReport.make(counts: counts, mixed: 0, options: options, correction: correction)
    }

    static func pValues(_ report: ExperimentReport) throws -> [(raw: Double, adjusted: Double)] {
        try report.metrics.map { metric in
            let comparison = try #require(metric.comparisons.first)
            return (try #require(comparison.pValue), try #require(comparison.adjustedPValue))
        }
    }

    @Test func holmIsTheDefaultAndFollowsItsFormula() throws {
        let report = Self.report(.holm)
        #expect(report.correction == .holm)
        let rows = try Self.pValues(report)
        // metric 1 (550) has the smaller p-value.
        let small = rows[1].raw
        let large = rows[0].raw
        #expect(small < large)
        #expect(abs(rows[1].adjusted - min(1, 2 * small)) < 1e-15)
        #expect(abs(rows[0].adjusted - max(min(1, 2 * small), large)) < 1e-15)
    }

    @Test func benjaminiHochbergFollowsItsFormula() throws {
        let report = Self.report(.bh)
        #expect(report.correction == .bh)
        let rows = try Self.pValues(report)
        let small = rows[1].raw
        let large = rows[0].raw
        #expect(abs(rows[1].adjusted - min(2 * small, large)) < 1e-15)
        #expect(abs(rows[0].adjusted - large) < 1e-15)
        // BH is never stricter than Holm.
        let holm = try Self.pValues(Self.report(.holm))
        #expect(zip(rows, holm).allSatisfy { $0.adjusted <= $1.adjusted })
    }
}
