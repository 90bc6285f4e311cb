import Foundation

/// The χ² distribution's upper tail and Pearson's goodness-of-fit test, for the
/// sample-ratio-mismatch check of experiments.
public enum ChiSquared {
    /// Pearson's goodness-of-fit test of observed counts against expected shares.
    public struct GoodnessOfFit: Sendable, Hashable, Codable {
        /// Σ (observed − expected)² / expected.
        public var statistic: Double
        /// Categories − 1.
        public var degreesOfFreedom: Int
        /// P(χ² ≥ statistic).
        public var pValue: Double
    }

    /// P(X ≥ `x`) for X ~ χ² with `degreesOfFreedom` degrees of freedom: Q(k/2, x/2), the
    /// regularized upper incomplete gamma function. `nil` unless `degreesOfFreedom` > 0; 1 for
    /// `x` ≤ 0.
    public static func survival(_ x: Double, degreesOfFreedom: Int) -> Double? {
        guard degreesOfFreedom > 0, !x.isNaN else { return nil }
        guard x > 0 else { return 1 }
        return upperRegularizedGamma(Double(degreesOfFreedom) / 2, x / 2)
    }

    /// Pearson's test of `observed` counts against `expectedShares` (normalized to sum 1).
    /// `nil` with fewer than two categories, counts and shares of different lengths, no
    /// observations, or a share that is not positive.
    public static func goodnessOfFit(observed: [Int], expectedShares: [Double]) -> GoodnessOfFit? {
        let total = observed.reduce(0, +)
        let shareTotal = expectedShares.reduce(0, +)
        guard observed.count >= 2, observed.count == expectedShares.count, total > 0,
            expectedShares.allSatisfy({ $0 > 0 && $0.isFinite }), observed.allSatisfy({ $0 >= 0 })
        else { return nil }
        var statistic = 0.0
        for (count, share) in zip(observed, expectedShares) {
            let expected = Double(total) * share / shareTotal
            statistic += (Double(count) - expected) * (Double(count) - expected) / expected
        }
        let degrees = observed.count - 1
        return GoodnessOfFit(
            statistic: statistic, degreesOfFreedom: degrees,
            pValue: survival(statistic, degreesOfFreedom: degrees) ?? 1)
    }

    /// Q(a, x) = Γ(a, x) / Γ(a): the power series of P below x = a + 1, where it converges fast,
    /// and Lentz's continued fraction for Q above, where the series would need many terms and
    /// 1 − P would lose the small tail probabilities the SRM check cares about.
    static func upperRegularizedGamma(_ a: Double, _ x: Double) -> Double {
        let logPrefix = -x + a * log(x) - lgamma(a)
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<10_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1..<10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(1, exp(logPrefix) * h)
    }
}
