/// An error of the event recorder itself (not of one event, not of the database).
public struct RecorderError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The spool folder could not be used.
        public static let spool = Code("spool")
        /// The spool is at its byte cap and refuses more (a server's spool: what it holds was
        /// acknowledged, so nothing in it is dropped to make room).
        public static let spoolFull = Code("spoolFull")
        /// The recorder was shut down and takes no more events.
        public static let shutDown = Code("shutDown")
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
