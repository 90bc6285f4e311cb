/// An error of the HTTP collector: a request it refuses, or a key it cannot manage.
public struct CollectorError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The body is not a batch: not JSON, or not `{"sent_at", "events"}` (HTTP 400).
        public static let malformedBatch = Code("malformed")
        /// The batch holds more events than the server takes at once (HTTP 413).
        public static let tooManyEvents = Code("too_many_events")
        /// The body is compressed in an encoding the collector does not read (HTTP 415).
        public static let unsupportedEncoding = Code("unsupported_encoding")
        /// The body, decompressed, is over the body limit (HTTP 413).
        public static let bodyTooLarge = Code("payload_too_large")
        /// No such app key, or it is revoked.
        public static let unknownKey = Code("unknown_key")
        /// An app key's name is empty or too long.
        public static let invalidKeyName = Code("invalid_key_name")
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
