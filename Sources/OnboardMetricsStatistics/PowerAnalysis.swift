import Foundation

/// Sample sizes for comparing two proportions with a two-sided test.
public enum PowerAnalysis {
    /// Units per arm needed to detect a change from `baseline` to `baseline + effect` with a
    /// two-sided test at `alpha` and the given `power` (Fleiss, Levin & Paik 2003, chapter 4):
    ///
    ///     n = (z₁₋α/₂ √(2 p̄ (1 − p̄)) + z₁₋β √(p₁(1 − p₁) + p₂(1 − p₂)))² / (p₁ − p₂)²,  p̄ = (p₁ + p₂)/2
    ///
    /// With `continuityCorrection`, Fleiss's correction n′ = n/4 · (1 + √(1 + 4 / (n |p₁ − p₂|)))²,
    /// which his tables print. Rounded up. `nil` unless both rates are in (0, 1), the effect is not
    /// zero, and alpha and power are in (0, 1).
    public static func sampleSizePerArm(
        baseline: Double, effect: Double, alpha: Double = 0.05, power: Double = 0.8,
        continuityCorrection: Bool = false
    ) -> Int? {
        let p1 = baseline
        let p2 = baseline + effect
        guard p1 > 0, p1 < 1, p2 > 0, p2 < 1, effect != 0, let zAlpha = NormalDistribution.quantile(1 - alpha / 2),
            let zBeta = NormalDistribution.quantile(power)
        else { return nil }
        let pooled = (p1 + p2) / 2
        let root =
            zAlpha * (2 * pooled * (1 - pooled)).squareRoot() + zBeta * (p1 * (1 - p1) + p2 * (1 - p2)).squareRoot()
        var n = root * root / (effect * effect)
        if continuityCorrection {
            let correction = 1 + (1 + 4 / (n * abs(effect))).squareRoot()
            n = n / 4 * correction * correction
        }
        // Rounding noise must not add a unit to an exact result.
        return Int((n - 1e-9).rounded(.up))
    }
}
