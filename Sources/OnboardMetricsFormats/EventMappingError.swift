/// A mapping file that cannot be used: unreadable, not JSON, or with a key or kind it does not know.
public struct EventMappingError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The file cannot be read.
        public static let unreadable = Code("unreadable")
        /// The file is not a mapping: bad JSON, an unknown key, a wrong type or kind.
        public static let invalid = Code("invalid")
    }

    public var code: Code
    /// What is wrong and where (file and JSON path).
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
