/// A failure that stops an ingest as a whole (a file that cannot be read, a mapping that names a
/// missing column), as opposed to a bad line, which is rejected and counted.
public struct IngestError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// An input file could not be opened or read, or the rejects file could not be written.
        public static let io = Code("io")
        /// A `--map` specification is malformed, names an unknown field or a column the header lacks.
        public static let mapping = Code("mapping")
        /// The input has no header row, or some other problem makes the whole file unreadable.
        public static let format = Code("format")
        /// The rejects file's path is an input, or holds a file that is not an earlier rejects file.
        public static let rejectsFile = Code("rejectsFile")
        /// A time zone name is not known.
        public static let timeZone = Code("timeZone")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people, saying what failed.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
