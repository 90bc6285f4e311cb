import Foundation

extension RandomNumberGenerator {
    /// A uniform double in [0, 1) from the top 53 bits.
    @inline(__always) package mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `p`.
    @inline(__always) package mutating func bernoulli(_ p: Double) -> Bool {
        p > 0 && uniform() < p
    }

    /// A standard normal variate (Box–Muller; one of the pair is discarded to keep the state simple).
    package mutating func standardNormal() -> Double {
        let u1 = max(uniform(), 0x1p-60)
        let u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// A log-normal variate with the given median and log-space standard deviation.
    package mutating func logNormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * standardNormal())
    }

    /// An index drawn with probability proportional to `weights`; 0 when all weights are zero.
    package mutating func pick(weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        var target = uniform() * total
        for (index, weight) in weights.enumerated() {
            target -= weight
            if target < 0 { return index }
        }
        return weights.count - 1
    }

    /// A uniform integer in `range` (for Int64 milliseconds).
    package mutating func integer(in range: Range<Int64>) -> Int64 {
        guard range.count > 1 else { return range.lowerBound }
        return range.lowerBound + Int64(next() % UInt64(range.count))
    }
}
