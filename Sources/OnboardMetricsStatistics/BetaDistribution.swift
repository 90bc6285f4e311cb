import Foundation

/// A Beta(α, β) distribution: the posterior of a conversion rate under a Beta prior, and the
/// Bayesian comparisons of two such posteriors that experiment reports print.
public struct BetaDistribution: Sendable, Hashable, Codable {
    /// α > 0.
    public var alpha: Double
    /// β > 0.
    public var beta: Double

    /// Creates a distribution; `nil` unless both parameters are positive and finite.
    public init?(alpha: Double, beta: Double) {
        guard alpha > 0, beta > 0, alpha.isFinite, beta.isFinite else { return nil }
        self.alpha = alpha
        self.beta = beta
    }

    /// The posterior of a rate after `successes` of `trials`, from a Beta(`priorAlpha`,
    /// `priorBeta`) prior (default Beta(1, 1), uniform). `nil` for impossible counts.
    public static func posterior(successes: Int, trials: Int, priorAlpha: Double = 1, priorBeta: Double = 1)
        -> BetaDistribution?
    {
        guard successes >= 0, successes <= trials else { return nil }
        return BetaDistribution(alpha: priorAlpha + Double(successes), beta: priorBeta + Double(trials - successes))
    }

    /// α / (α + β).
    public var mean: Double { alpha / (alpha + beta) }

    /// αβ / ((α + β)² (α + β + 1)).
    public var variance: Double {
        let sum = alpha + beta
        return alpha * beta / (sum * sum * (sum + 1))
    }

    /// P(Y > X) for independent X ~ `baseline` and Y ~ `self`: the chance to beat control.
    ///
    /// **Normal approximation**: each posterior is replaced by a normal of the same mean and
    /// variance, so Y − X ~ N(μ, σ²) and P = Φ(μ / σ) — the approximation GrowthBook's gbstats
    /// makes. With the sample sizes experiments run at (tens of conversions per arm and more) it is
    /// within about 0.005 of the exact integral; for a handful of conversions it is cruder.
    public func chanceToBeat(_ baseline: BetaDistribution) -> Double {
        let (mu, sigma) = difference(from: baseline)
        guard sigma > 0 else { return mu > 0 ? 1 : (mu < 0 ? 0 : 0.5) }
        return NormalDistribution.cdf(mu / sigma)
    }

    /// E[max(X − Y, 0)] for X ~ `baseline`, Y ~ `self`: the rate lost, on average, by choosing
    /// this variant when the baseline is better (under the same normal approximation as
    /// ``chanceToBeat(_:)``): with D = Y − X ~ N(μ, σ²), E[max(−D, 0)] = σ·φ(μ/σ) − μ·Φ(−μ/σ).
    public func expectedLoss(versus baseline: BetaDistribution) -> Double {
        let (mu, sigma) = difference(from: baseline)
        guard sigma > 0 else { return max(-mu, 0) }
        let z = mu / sigma
        let density = exp(-z * z / 2) / (2 * Double.pi).squareRoot()
        return max(0, sigma * density - mu * NormalDistribution.cdf(-z))
    }

    /// Mean and standard deviation of Y − X under the normal approximation.
    private func difference(from baseline: BetaDistribution) -> (Double, Double) {
        (mean - baseline.mean, (variance + baseline.variance).squareRoot())
    }
}
