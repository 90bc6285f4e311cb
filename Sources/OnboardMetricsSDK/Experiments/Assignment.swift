/// Deterministic, GrowthBook-compatible assignment of units (users) to experiment variants.
///
/// The same unit id always lands in the same variant, on any device and in any GrowthBook SDK, so
/// an app can assign without a server round trip and the analyzer can recompute assignments:
/// - ``fnv1a32(_:)``: 32-bit FNV-1a over the UTF-16 code units of a string (what JavaScript's
///   `charCodeAt` yields, which is what the GrowthBook SDKs hash).
/// - ``hash(seed:value:version:)``: version 2 is `fnv(String(fnv(seed + value))) % 10000 / 10000`,
///   version 1 is `fnv(value + seed) % 1000 / 1000`.
/// - ``bucketRanges(count:coverage:weights:)`` and ``chooseVariation(_:ranges:)``: a variant owns
///   `[start, start + coverage × weight)` of the unit interval; a hash outside every range is not
///   enrolled.
public enum Assignment {
    /// One variant's share of the unit interval: `[lower, upper)`.
    public struct BucketRange: Sendable, Hashable, Codable {
        public var lower: Double
        public var upper: Double

        /// Creates a range.
        public init(lower: Double, upper: Double) {
            self.lower = lower
            self.upper = upper
        }

        /// Whether `value` falls in `[lower, upper)` (GrowthBook's `inRange`).
        public func contains(_ value: Double) -> Bool { value >= lower && value < upper }
    }

    /// The outcome of assigning one unit.
    public struct Outcome: Sendable, Hashable, Codable {
        /// The unit's hash in [0, 1).
        public var hashValue: Double
        /// The index of the chosen variant; `nil` when the unit is not enrolled (outside coverage).
        public var variantIndex: Int?
        /// The chosen variant's name; `nil` when the unit is not enrolled.
        public var variant: String?
    }

    /// 32-bit FNV-1a (offset basis 0x811c9dc5, prime 0x01000193) over the UTF-16 code units of
    /// `text`. Each step XORs in a whole 16-bit code unit, not a byte, as GrowthBook's JavaScript
    /// reference does; hashing UTF-8 bytes instead would put non-ASCII ids in other buckets.
    public static func fnv1a32(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for unit in text.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 0x0100_0193
        }
        return hash
    }

    /// The unit's position in [0, 1) for a seed (usually the experiment key); `nil` for a hash
    /// version other than 1 or 2.
    ///
    /// Version 2 hashes twice because version 1's single hash of `value + seed` correlated the
    /// buckets of experiments whose seeds share a suffix.
    public static func hash(seed: String, value: String, version: Int) -> Double? {
        switch version {
        case 1: return Double(fnv1a32(value + seed) % 1000) / 1000
        case 2: return Double(fnv1a32(String(fnv1a32(seed + value))) % 10000) / 10000
        default: return nil
        }
    }

    /// Equal weights `1/count` each (none for a count below 1).
    public static func equalWeights(count: Int) -> [Double] {
        guard count > 0 else { return [] }
        return Array(repeating: 1 / Double(count), count: count)
    }

    /// Bucket ranges for `count` variants, GrowthBook's `getBucketRanges`: coverage is clamped to
    /// 0...1; weights fall back to equal weights when missing, of another count, or not summing
    /// to 1 (within 0.99...1.01); variant i owns `[Σ w<i, Σ w<i + coverage × wᵢ)`. Keeping each
    /// range's start where it would be at full coverage means raising coverage later never moves
    /// an enrolled unit to another variant.
    public static func bucketRanges(count: Int, coverage: Double = 1, weights: [Double]? = nil) -> [BucketRange] {
        let coverage = coverage.isNaN ? 0 : min(max(coverage, 0), 1)
        let equal = equalWeights(count: count)
        var chosen = weights ?? equal
        if chosen.count != count { chosen = equal }
        let total = chosen.reduce(0, +)
        if !(total >= 0.99 && total <= 1.01) { chosen = equal }
        var cumulative = 0.0
        return chosen.map { weight in
            let start = cumulative
            cumulative += weight
            return BucketRange(lower: start, upper: start + coverage * weight)
        }
    }

    /// The index of the first range that holds `value`, `nil` when none does (not enrolled).
    public static func chooseVariation(_ value: Double, ranges: [BucketRange]) -> Int? {
        ranges.firstIndex { $0.contains(value) }
    }

    /// Assigns `unit` in `experiment`: the hash of the unit id with the experiment's seed and hash
    /// version, then the variant whose bucket range holds it.
    public static func assign(_ unit: String, in experiment: ExperimentDefinition) -> Outcome {
        // ExperimentDefinition only admits hash versions 1 and 2, so the fallback is never taken.
        let value = hash(seed: experiment.seed, value: unit, version: experiment.hashVersion) ?? 0
        let ranges = bucketRanges(
            count: experiment.variants.count, coverage: experiment.coverage, weights: experiment.variants.map(\.weight))
        let index = chooseVariation(value, ranges: ranges)
        return Outcome(hashValue: value, variantIndex: index, variant: index.map { experiment.variants[$0].name })
    }
}
