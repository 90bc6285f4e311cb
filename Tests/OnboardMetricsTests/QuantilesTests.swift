import Testing

@testable import OnboardMetrics
@testable import OnboardMetricsSDK

@Suite struct QuantilesTests {
    // Reference values from NumPy 2.4 (np.percentile, default linear method = Hyndman & Fan type 7).
    @Test(arguments: [
        ([1.0, 2, 3, 4, 10], 0.5, 3.0), ([1.0, 2, 3, 4, 10], 0.9, 7.6),
        ([5.0, 7.0], 0.5, 6.0), ([5.0, 7.0], 0.9, 6.8),
        ([2.5], 0.5, 2.5), ([2.5], 0.9, 2.5),
        ([3.0, 1, 4, 1, 5, 9, 2, 6], 0.5, 3.5), ([3.0, 1, 4, 1, 5, 9, 2, 6], 0.9, 6.9),
    ])
    func matchesNumPy(values: [Double], q: Double, expected: Double) throws {
        let value = try #require(Quantiles.quantile(values, q))
        #expect(abs(value - expected) < 1e-9)
    }

    @Test func emptySampleHasNoQuantile() {
        #expect(Quantiles.quantile([], 0.5) == nil)
    }
}
