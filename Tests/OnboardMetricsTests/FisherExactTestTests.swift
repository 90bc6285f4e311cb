import Testing

@testable import OnboardMetricsStatistics

/// Fisher's exact two-sided p-values against SciPy: the values come from
/// `python3 scripts/reference/correlation_reference.py` (scipy.stats.fisher_exact, run in a venv
/// with scipy 1.x), copied here.
@Suite struct FisherExactTestTests {
    static let scipy: [([[Int]], Double)] = [
        ([[3, 1], [1, 3]], 0.485714285714286),  // Fisher's tea-tasting lady
        ([[8, 2], [1, 5]], 0.034965034965035),
        ([[1000, 50], [900, 120]], 5.28480333366419e-09),
        ([[0, 10], [5, 5]], 0.0325077399380805),
        ([[0, 5], [0, 7]], 1),
        ([[10, 0], [0, 10]], 1.0825088224469e-05),
        ([[2, 7], [8, 2]], 0.0230141375652212),
        ([[5, 5], [5, 5]], 1),
        ([[20000, 180000], [20600, 179400]], 0.00171121330007452),
        ([[1, 99999], [9, 99991]], 0.021481298905187),
    ]

    @Test(arguments: scipy)
    func matchesSciPy(table: [[Int]], expected: Double) throws {
        let p = try #require(FisherExactTest.twoSidedPValue(table[0][0], table[0][1], table[1][0], table[1][1]))
        #expect(abs(p - expected) <= 1e-9 * max(expected, 1e-300) + 1e-12, "\(table): \(p) vs SciPy \(expected)")
    }

    @Test func symmetricUnderTransposeAndRowSwap() throws {
        // The same table seen another way has the same margins' distribution.
        let p = try #require(FisherExactTest.twoSidedPValue(8, 2, 1, 5))
        let transposed = try #require(FisherExactTest.twoSidedPValue(8, 1, 2, 5))
        let swapped = try #require(FisherExactTest.twoSidedPValue(1, 5, 8, 2))
        #expect(abs(p - transposed) < 1e-14)
        #expect(abs(p - swapped) < 1e-14)
    }

    @Test func emptyAndNegativeTables() {
        #expect(FisherExactTest.twoSidedPValue(0, 0, 0, 0) == 1)
        #expect(FisherExactTest.twoSidedPValue(-1, 2, 3, 4) == nil)
    }
}
