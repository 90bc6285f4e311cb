/// Why an experiment definition, an assignment or an experiment report could not be made.
public struct ExperimentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members, e.g. `error.code == .unknownExperiment`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The key is empty.
        public static let emptyKey = Code("emptyKey")
        /// Fewer than two variants, an empty variant name, or two variants with one name.
        public static let invalidVariants = Code("invalidVariants")
        /// A weight is negative or not finite, or there are not as many weights as variants.
        public static let invalidWeights = Code("invalidWeights")
        /// Coverage outside 0...1.
        public static let invalidCoverage = Code("invalidCoverage")
        /// A hash version other than 1 or 2.
        public static let unsupportedHashVersion = Code("unsupportedHashVersion")
        /// No experiment with that key is stored.
        public static let unknownExperiment = Code("unknownExperiment")
        /// A stored row cannot be read back as an experiment.
        public static let invalidStoredExperiment = Code("invalidStoredExperiment")
        /// A `--metric` that is not `completion`, `step:ID` or `discovery:FEATURE`.
        public static let invalidMetric = Code("invalidMetric")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people, saying what is wrong.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
