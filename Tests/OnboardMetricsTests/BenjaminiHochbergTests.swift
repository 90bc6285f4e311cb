import Testing

@testable import OnboardMetricsStatistics

/// Benjamini–Hochberg (and Holm, for `--correction holm`) adjusted p-values against statsmodels:
/// `multipletests(p, method="fdr_bh")` and `method="holm"`, printed by
/// `python3 scripts/reference/correlation_reference.py` (venv with statsmodels), copied here.
@Suite struct BenjaminiHochbergTests {
    /// The 15 p-values of Benjamini & Hochberg (1995), section 4.2.
    static let paper = [
        0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528,
        0.7590, 1.000,
    ]

    static func close(_ lhs: [Double], _ rhs: [Double]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { abs($0 - $1) < 1e-12 }
    }

    @Test func paperExampleMatchesStatsmodels() {
        let expected = [
            0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.0638571428571429, 0.0638571428571429, 0.0645, 0.0765, 0.486,
            0.581181818181818, 0.714875, 0.753230769230769, 0.813214285714286, 1,
        ]
        let adjusted = BenjaminiHochberg.adjust(Self.paper)
        #expect(Self.close(adjusted, expected), "\(adjusted)")
        // The paper: at q = 0.05 the four smallest are rejected (Bonferroni rejects three).
        #expect(adjusted.filter { $0 < 0.05 }.count == 4)
    }

    @Test func unsortedWithTiesKeepsOrder() {
        let p = [0.04, 0.01, 0.04, 0.03, 0.5]
        #expect(Self.close(BenjaminiHochberg.adjust(p), [0.05, 0.05, 0.05, 0.05, 0.5]))
        #expect(Self.close(MultipleComparisonCorrection.holm.adjust(p), [0.12, 0.05, 0.12, 0.12, 0.5]))
    }

    @Test func holmOnThePaperExampleMatchesStatsmodels() {
        let expected = [0.0015, 0.0056, 0.0247, 0.114, 0.2211, 0.278, 0.278, 0.278, 0.3213, 1, 1, 1, 1, 1, 1]
        #expect(Self.close(MultipleComparisonCorrection.holm.adjust(Self.paper), expected))
    }

    @Test func emptyFamily() {
        #expect(BenjaminiHochberg.adjust([]).isEmpty)
    }
}
