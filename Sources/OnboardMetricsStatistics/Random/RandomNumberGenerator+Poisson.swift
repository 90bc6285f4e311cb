import Foundation

extension RandomNumberGenerator {
    /// A Poisson variate with the given mean (0 for a mean of 0 or less).
    ///
    /// Below a mean of 10, Knuth's multiplication method; from 10 on, Hörmann's transformed
    /// rejection with squeeze, PTRS ("The transformed rejection method for generating Poisson
    /// random variables", Insurance: Mathematics and Economics 12, 1993), whose cost does not grow
    /// with the mean — the Poisson bootstrap draws one variate per group of identical users, with
    /// means up to the number of users.
    package mutating func poisson(mean: Double) -> Int {
        guard mean > 0 else { return 0 }
        if mean < 10 {
            let limit = exp(-mean)
            var count = 0
            var product = uniform()
            while product > limit {
                count += 1
                product *= uniform()
            }
            return count
        }
        let root = mean.squareRoot()
        let logMean = log(mean)
        let b = 0.931 + 2.53 * root
        let a = -0.059 + 0.02483 * b
        let inverseAlpha = 1.1239 + 1.1328 / (b - 3.4)
        let vr = 0.9277 - 3.6224 / (b - 2)
        while true {
            let u = uniform() - 0.5
            let v = uniform()
            let us = 0.5 - abs(u)
            let k = ((2 * a / us + b) * u + mean + 0.43).rounded(.down)
            if us >= 0.07, v <= vr { return Int(k) }
            if k < 0 || (us < 0.013 && v > us) { continue }
            if log(v) + log(inverseAlpha) - log(a / (us * us) + b) <= -mean + k * logMean - lgamma(k + 1) {
                return Int(k)
            }
        }
    }
}
