import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// The Poisson sampler behind the bootstrap, checked against the distribution itself: the
/// sample mean and variance against λ (both equal λ for a Poisson variable), and Pearson's χ²
/// against the probability mass function e^−λ λᵏ / k! over bins with at least 5 expected draws.
@Suite struct PoissonTests {
    static let draws = 200_000

    /// Both methods (Knuth's below 10, PTRS from 10) and the switch between them.
    @Test(arguments: [0.5, 4, 9.9, 10, 37.5, 10_000])
    func meanAndVarianceAreLambda(lambda: Double) {
        var generator = Xoshiro256StarStar(seed: 7)
        var sum = 0.0
        var squares = 0.0
        for _ in 0..<Self.draws {
            let value = Double(generator.poisson(mean: lambda))
            sum += value
            squares += value * value
        }
        let n = Double(Self.draws)
        let mean = sum / n
        let variance = (squares - n * mean * mean) / (n - 1)
        // Standard errors: √(λ/n) for the mean; √((λ + 2λ²)/n) for the variance (μ₄ = λ + 3λ²).
        #expect(abs(mean - lambda) < 4 * (lambda / n).squareRoot())
        #expect(abs(variance - lambda) < 4 * ((lambda + 2 * lambda * lambda) / n).squareRoot())
    }

    @Test(arguments: [3.0, 37.5, 250])
    func frequenciesFitTheMassFunction(lambda: Double) throws {
        var generator = Xoshiro256StarStar(seed: 11)
        var counts: [Int: Int] = [:]
        for _ in 0..<Self.draws { counts[generator.poisson(mean: lambda), default: 0] += 1 }
        func mass(_ k: Int) -> Double { exp(Double(k) * log(lambda) - lambda - lgamma(Double(k) + 1)) }
        // Bins: from the lowest k to the highest with ≥ 5 expected draws; the tails join their edge bins.
        let n = Double(Self.draws)
        let low = (0...).first { mass($0) * n >= 5 } ?? 0
        let high = (low...).first { mass($0 + 1) * n < 5 } ?? low
        var observed: [Int] = []
        var shares: [Double] = []
        for k in low...high {
            observed.append(counts[k] ?? 0)
            shares.append(mass(k))
        }
        observed[0] += counts.filter { $0.key < low }.values.reduce(0, +)
        shares[0] += (0..<low).reduce(0) { $0 + mass($1) }
        observed[observed.count - 1] += counts.filter { $0.key > high }.values.reduce(0, +)
        shares[shares.count - 1] += max(0, 1 - shares.reduce(0, +))
        let test = try #require(ChiSquared.goodnessOfFit(observed: observed, expectedShares: shares))
        #expect(test.pValue > 0.001, "χ² = \(test.statistic) on \(test.degreesOfFreedom) df")
    }

    @Test func zeroMeanGivesZero() {
        var generator = Xoshiro256StarStar(seed: 1)
        #expect(generator.poisson(mean: 0) == 0)
        #expect(generator.poisson(mean: -1) == 0)
    }
}
