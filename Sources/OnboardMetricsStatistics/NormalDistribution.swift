import Foundation

/// The standard normal distribution: the cumulative distribution function and its inverse, the
/// building blocks of score intervals and z-tests.
public enum NormalDistribution {
    /// P(Z ≤ `x`) for a standard normal Z.
    ///
    /// Computed as ½·erfc(−x/√2): `erfc` keeps full relative precision far into the lower tail,
    /// where 1 − ½·erfc(x/√2) would cancel to zero.
    public static func cdf(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// The `p`-quantile: the z with P(Z ≤ z) = `p`; `nil` unless 0 < `p` < 1.
    ///
    /// Acklam's rational approximation (relative error below 1.15e-9), then one Halley step
    /// against ``cdf(_:)``, which brings it to within a few ulps of the exact value.
    public static func quantile(_ p: Double) -> Double? {
        guard p > 0, p < 1 else { return nil }
        let low = 0.02425
        var x: Double
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            x = tail(q)
        } else if p <= 1 - low {
            let q = p - 0.5
            let r = q * q
            let a = [
                -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
                -3.066479806614716e+01, 2.506628277459239e+00,
            ]
            let b = [
                -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                -1.328068155288572e+01,
            ]
            let numerator = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            let denominator = ((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1
            x = numerator / denominator
        } else {
            let q = (-2 * log1p(-p)).squareRoot()
            x = -tail(q)
        }
        // Halley refinement: e is the error in probability, u = e / density.
        let e = cdf(x) - p
        let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }

    /// Acklam's lower-tail approximation for q = √(−2 ln p).
    private static func tail(_ q: Double) -> Double {
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
            4.374664141464968e+00, 2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let numerator = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]
        let denominator = (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        return numerator / denominator
    }

    /// The two-sided critical value for a confidence `level` (1.959964 for 0.95); `nil` unless
    /// 0 < `level` < 1.
    public static func criticalValue(level: Double) -> Double? {
        guard level > 0, level < 1 else { return nil }
        return quantile(1 - (1 - level) / 2)
    }
}
