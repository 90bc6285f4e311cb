/// A cohort that cannot be saved or found.
public struct CohortError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The name is not 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit.
        public static let invalidName = Code("invalid_cohort_name")
        /// A cohort of that name exists (and replacing it was not asked for).
        public static let exists = Code("cohort_exists")
        /// No cohort has that name.
        public static let unknown = Code("unknown_cohort")
    }

    /// The kind of failure.
    public var code: Code
    /// What is wrong, for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
