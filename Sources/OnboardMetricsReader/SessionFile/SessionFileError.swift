/// Why a session file could not be used. A report that meets one reads PostgreSQL instead and
/// writes the file again: the file is a copy, never the record.
public struct SessionFileError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The file ends before what it says it holds.
        public static let truncated = Code("truncated")
        /// The file holds something its format does not allow (another version, another tool's file).
        public static let malformed = Code("malformed")
        /// The file or its folder could not be read or written.
        public static let io = Code("io")
        /// The file or its folder is not this user's alone (another user could have written it).
        public static let foreign = Code("foreign")
        public var description: String { name }
    }

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    static let truncated = SessionFileError(.truncated, "the session file ends early")
    static func malformed(_ what: String) -> SessionFileError {
        SessionFileError(.malformed, "the session file holds \(what)")
    }

    public var description: String { message }
}
