import Foundation

/// Always-valid inference for the difference of two proportions, p₂ − p₁: a confidence sequence
/// and a p-value that stay valid however often the data are looked at (any number of looks, at
/// any times, stopping whenever), by the normal-mixture sequential probability ratio test.
///
/// **Method** (GrowthBook's sequential testing; Waudby-Smith et al., "Time-uniform central limit
/// theory and asymptotic confidence sequences", 2023, the asymptotic normal-mixture boundary;
/// the same mixture as Robbins' and Optimizely's mSPRT). With n = n₁ + n₂ units in all, the
/// estimate Δ̂ = p̂₂ − p̂₁, its (unpooled) standard error σ̂, and s² = n·σ̂²:
///
///     ρ       = √((−2 ln α + ln(−2 ln α + 1)) / N*)
///     Δ̂ ± √s² · √(2(nρ² + 1) / (n²ρ²) · ln(√(nρ² + 1) / α))
///     e-value = exp(ρ² · nΔ̂²/s² · n / (2(nρ² + 1))) / √(nρ² + 1),   p = min(1, 1 / e-value)
///
/// The e-value is the mixture, over a N(0, ρ²) prior on the standardised effect, of the
/// likelihood ratios of the drifting-mean martingale; Ville's inequality bounds the chance that
/// it ever exceeds 1/α under the null by α. The interval is the set of differences that such a
/// test at α does not reject, so p < α exactly when the interval excludes 0.
///
/// **Tuning.** N* (``tuning``, default 5,000 as in GrowthBook) is the total sample size at which
/// the interval is narrowest relative to a fixed-horizon one; set it near the size the experiment
/// is expected to reach. It changes the width, never the validity.
public struct MixtureSequentialTest: Sendable, Hashable, Codable {
    /// α: the chance, over the whole run, that the interval ever misses the true difference.
    public var alpha: Double
    /// N*, the total sample size the boundary is tuned for.
    public var tuning: Double
    /// ρ, the mixture's standard deviation (from α and N*).
    public var rho: Double
    /// p̂₂ − p̂₁.
    public var estimate: Double
    /// σ̂ = √(p̂₁(1 − p̂₁)/n₁ + p̂₂(1 − p̂₂)/n₂).
    public var standardError: Double
    /// The always-valid (1 − α) interval of p₂ − p₁.
    public var interval: ConfidenceInterval
    /// The mixture likelihood ratio against p₂ − p₁ = 0.
    public var eValue: Double
    /// min(1, 1 / e-value): always valid.
    public var pValue: Double

    /// GrowthBook's default N*.
    public static let defaultTuning = 5_000.0

    /// The N* taken: a total sample size of at least 10 units and at most ten billion. Outside it
    /// the mixture's width over- or underflows and the test says nothing (a tiny N* made a
    /// difference of nothing look significant).
    public static let tuningRange: ClosedRange<Double> = 10...1e10

    /// The test of `successes2/trials2` against `successes1/trials1`; `nil` when a sample is empty,
    /// counts are impossible, both rates are 0 or 1 (no variance), or α or N* is out of range
    /// (N* in ``tuningRange``).
    public init?(
        successes1: Int, trials1: Int, successes2: Int, trials2: Int, alpha: Double = 0.05,
        tuning: Double = MixtureSequentialTest.defaultTuning
    ) {
        guard trials1 > 0, trials2 > 0, successes1 >= 0, successes2 >= 0, successes1 <= trials1,
            successes2 <= trials2, alpha > 0, alpha < 1, Self.tuningRange.contains(tuning)
        else { return nil }
        let n1 = Double(trials1)
        let n2 = Double(trials2)
        let p1 = Double(successes1) / n1
        let p2 = Double(successes2) / n2
        let variance = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
        guard variance > 0 else { return nil }
        self.init(estimate: p2 - p1, variance: variance, units: n1 + n2, alpha: alpha, tuning: tuning)
    }

    /// The test for any asymptotically normal estimate with variance `variance` from `units` units in all.
    public init(estimate: Double, variance: Double, units: Double, alpha: Double, tuning: Double) {
        let rho = Self.rho(alpha: alpha, tuning: tuning)
        let n = units
        let s2 = variance * n
        let nRho2 = n * rho * rho
        let halfWidth = (s2 * 2 * (nRho2 + 1) / (nRho2 * n) * log((nRho2 + 1).squareRoot() / alpha)).squareRoot()
        // ln e = ρ²·(n Δ̂² / s²)·n / (2(nρ² + 1)) − ½ ln(nρ² + 1); kept in logs so a large effect does not overflow.
        let logE = rho * rho * n * n * estimate * estimate / s2 / (2 * (nRho2 + 1)) - 0.5 * log(nRho2 + 1)
        self.alpha = alpha
        self.tuning = tuning
        self.rho = rho
        self.estimate = estimate
        self.standardError = variance.squareRoot()
        self.interval = ConfidenceInterval(lower: estimate - halfWidth, upper: estimate + halfWidth, level: 1 - alpha)
        self.eValue = exp(min(logE, 700))
        self.pValue = min(1, exp(-logE))
    }

    /// ρ = √((−2 ln α + ln(−2 ln α + 1)) / N*): the mixture width that makes the boundary tightest at N* units.
    public static func rho(alpha: Double, tuning: Double) -> Double {
        let twoLogAlpha = -2 * log(alpha)
        return ((twoLogAlpha + log(twoLogAlpha + 1)) / tuning).squareRoot()
    }
}
