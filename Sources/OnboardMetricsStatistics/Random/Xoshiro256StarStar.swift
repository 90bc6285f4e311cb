/// xoshiro256** (Blackman and Vigna), seeded through SplitMix64: a fast, deterministic PRNG whose
/// output depends only on the seed, on every platform and Swift version (unlike the system RNG).
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Creates a generator whose state is four SplitMix64 outputs of `seed` (never all zero).
    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    public mutating func next() -> UInt64 {
        let result = (s1 &* 5).rotatedLeft(by: 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3.rotatedLeft(by: 45)
        return result
    }
}

extension UInt64 {
    @inline(__always) func rotatedLeft(by count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
