extension ConfidenceInterval {
    /// The Wilson score interval for a binomial proportion `successes / trials`, without
    /// continuity correction (Wilson 1927; method 3 of Newcombe 1998).
    ///
    /// Chosen over the Wald interval because it keeps its coverage for small samples and for rates
    /// near 0 or 1 (discovery rates often are), never leaves [0, 1], and is not degenerate at 0 or
    /// `trials` successes. `nil` when `trials` is not positive, `successes` is outside
    /// `0...trials`, or `level` is outside (0, 1).
    public static func wilson(successes: Int, trials: Int, level: Double = 0.95) -> ConfidenceInterval? {
        guard trials > 0, successes >= 0, successes <= trials, let z = NormalDistribution.criticalValue(level: level)
        else { return nil }
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z * z
        let denominator = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / denominator
        let half = z / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        // At 0 or `trials` successes one bound is exactly 0 or 1; clamp away rounding noise.
        let lower = successes == 0 ? 0 : max(0, center - half)
        let upper = successes == trials ? 1 : min(1, center + half)
        return ConfidenceInterval(lower: lower, upper: upper, level: level)
    }
}
