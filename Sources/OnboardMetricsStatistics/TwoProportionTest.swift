import Foundation

/// The two-sided z-test for a difference of two independent proportions, with the pooled
/// standard error (the textbook test; equal to Pearson's χ² test of the 2×2 table without
/// continuity correction).
public struct TwoProportionTest: Sendable, Hashable, Codable {
    /// (p₂ − p₁) / √(p̄(1 − p̄)(1/n₁ + 1/n₂)), p̄ the pooled rate.
    public var z: Double
    /// 2·P(Z ≥ |z|).
    public var pValue: Double

    /// The test of `successes2/trials2` against `successes1/trials1`; `nil` when a sample is empty,
    /// counts are impossible, or the pooled rate is 0 or 1 (no variance: nothing to test).
    public init?(successes1: Int, trials1: Int, successes2: Int, trials2: Int) {
        guard trials1 > 0, trials2 > 0, successes1 >= 0, successes2 >= 0, successes1 <= trials1,
            successes2 <= trials2
        else { return nil }
        let n1 = Double(trials1)
        let n2 = Double(trials2)
        let pooled = Double(successes1 + successes2) / (n1 + n2)
        guard pooled > 0, pooled < 1 else { return nil }
        let standardError = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot()
        z = (Double(successes2) / n2 - Double(successes1) / n1) / standardError
        // erfc keeps tiny p-values that 2·(1 − Φ(|z|)) would round to zero.
        pValue = erfc(abs(z) / 2.0.squareRoot())
    }
}
