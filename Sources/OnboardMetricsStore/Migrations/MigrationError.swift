/// A migration that cannot be read or applied: a `Code` saying which, a message naming the file,
/// and, when the server refused the migration's SQL, its SQLSTATE.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. Compare with the static members, e.g. `error.code == .changed`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The folder or a file cannot be read, a file is misnamed, or two files share a version.
        public static let invalidFile = Code("invalidFile")
        /// A migration's file was changed after it was applied (its checksum differs).
        public static let changed = Code("changed")
        /// The server refused a migration's SQL; ``MigrationError/sqlState`` says why.
        public static let refused = Code("refused")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for people, naming the file (and, for refused SQL, the line and the server's
    /// message, SQLSTATE, detail and hint).
    public var message: String
    /// The SQLSTATE the server reported for refused SQL.
    public var sqlState: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }
}
