/// An experiment: its key, the variants (control first) with their weights, and how units are
/// hashed into them (seed, hash version, coverage). Stored in the `experiments` table.
public struct ExperimentDefinition: Sendable, Hashable, Codable {
    /// One arm of the experiment.
    public struct Variant: Sendable, Hashable, Codable {
        /// The name recorded in `experiment_exposure`'s `properties.variant`.
        public var name: String
        /// Its share of enrolled units.
        public var weight: Double

        /// Creates a variant.
        public init(name: String, weight: Double) {
            self.name = name
            self.weight = weight
        }
    }

    /// The experiment key: the `name` of its `experiment_exposure` events.
    public var key: String
    /// The hash seed; GrowthBook uses the key when no seed is given.
    public var seed: String
    /// 1 or 2 (see ``Assignment/hash(seed:value:version:)``).
    public var hashVersion: Int
    /// The share of units enrolled, 0...1.
    public var coverage: Double
    /// The variants, control first.
    public var variants: [Variant]

    /// Creates and validates an experiment.
    /// - Parameters:
    ///   - key: the experiment key.
    ///   - variants: variant names, control first (at least two, distinct, non-empty).
    ///   - weights: one weight per variant (non-negative); equal weights when `nil`. As in
    ///     GrowthBook, weights not summing to 1 are replaced by equal weights when assigning.
    ///   - seed: the hash seed; the key when `nil`.
    ///   - coverage: the share of units enrolled, 0...1.
    ///   - hashVersion: 1 or 2.
    /// - Throws: ``ExperimentError`` for an invalid definition.
    public init(
        key: String, variants: [String], weights: [Double]? = nil, seed: String? = nil, coverage: Double = 1,
        hashVersion: Int = 2
    ) throws {
        let weights = weights ?? Assignment.equalWeights(count: variants.count)
        guard weights.count == variants.count else {
            throw ExperimentError(
                .invalidWeights, "\(weights.count) weights for \(variants.count) variants: give one weight per variant")
        }
        self.key = key
        self.seed = seed ?? key
        self.hashVersion = hashVersion
        self.coverage = coverage
        self.variants = zip(variants, weights).map { Variant(name: $0, weight: $1) }
        try validate()
    }

    /// The control variant's name (the first variant).
    public var control: String { variants.first?.name ?? "" }

    /// Checks the invariants ``init(key:variants:weights:seed:coverage:hashVersion:)`` promises,
    /// also for values decoded from JSON or the database.
    /// - Throws: ``ExperimentError``.
    public func validate() throws {
        guard !key.isEmpty else { throw ExperimentError(.emptyKey, "an experiment needs a non-empty key") }
        let names = variants.map(\.name)
        guard names.count >= 2, !names.contains(""), Set(names).count == names.count else {
            throw ExperimentError(
                .invalidVariants,
                "experiment '\(key)' needs at least two variants with distinct, non-empty names (got \(names))")
        }
        guard variants.allSatisfy({ $0.weight.isFinite && $0.weight >= 0 }) else {
            throw ExperimentError(.invalidWeights, "experiment '\(key)': weights must be finite and not negative")
        }
        guard coverage >= 0, coverage <= 1 else {
            throw ExperimentError(.invalidCoverage, "experiment '\(key)': coverage \(coverage) is outside 0...1")
        }
        guard hashVersion == 1 || hashVersion == 2 else {
            throw ExperimentError(
                .unsupportedHashVersion, "experiment '\(key)': hash version \(hashVersion) is not 1 or 2")
        }
    }

    /// The weights assignment actually uses: the given ones, or equal weights when they do not sum
    /// to 1 (GrowthBook's rule) — also the expected split of the sample-ratio-mismatch test.
    public var effectiveWeights: [Double] {
        let ranges = Assignment.bucketRanges(count: variants.count, coverage: 1, weights: variants.map(\.weight))
        return ranges.map { $0.upper - $0.lower }
    }

    /// Assigns a unit (user id); see ``Assignment/assign(_:in:)``.
    public func assign(_ unit: String) -> Assignment.Outcome { Assignment.assign(unit, in: self) }
}
