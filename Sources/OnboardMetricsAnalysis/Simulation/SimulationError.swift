/// Why a flow simulation could not be made.
public struct SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members, e.g. `error.code == .noData`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// An `--assume` that is not `STEP=RATE` with a rate in [0, 1], or names no candidate step.
        public static let badAssumption = Code("badAssumption")
        /// A candidate step has no recorded behaviour and no assumption.
        public static let missingBehaviour = Code("missingBehaviour")
        /// No finished recorded session of the baseline flow in the data read.
        public static let noData = Code("noData")
        /// A flow's navigator did not finish (a hand-off loop), or another option is out of range.
        public static let invalidOptions = Code("invalidOptions")
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
