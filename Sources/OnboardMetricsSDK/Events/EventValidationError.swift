/// Why an event was refused: which field, and what is wrong with it.
public struct EventValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A required field is absent or empty.
        public static let missing = Code("missing")
        /// A name is longer than ``EventValidator/maximumNameLength`` characters.
        public static let tooLong = Code("tooLong")
        /// The properties are larger than ``EventValidator/maximumPropertiesBytes`` as JSON.
        public static let tooLarge = Code("tooLarge")
        /// A string holds a NUL character, which PostgreSQL cannot store.
        public static let nulCharacter = Code("nulCharacter")
        /// A timestamp is implausibly far in the past or the future.
        public static let absurdTimestamp = Code("absurdTimestamp")
        /// A number is outside its column's range.
        public static let outOfRange = Code("outOfRange")
        /// The input could not be read as an event at all (bad JSON, unknown kind, bad date).
        public static let malformed = Code("malformed")
    }

    /// The kind of problem.
    public var code: Code
    /// The field at fault, as named in the event format (`step_id`, `properties.reason`, ...).
    public var field: String
    /// What is wrong, for people.
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, field: String, reason: String) {
        self.code = code
        self.field = field
        self.reason = reason
    }

    public var description: String { field.isEmpty ? reason : "\(field): \(reason)" }
}
