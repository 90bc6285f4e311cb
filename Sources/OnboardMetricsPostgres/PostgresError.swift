/// An error from the PostgreSQL layer: a `Code` saying what kind of failure it is, a message,
/// and, for errors the server reported, its SQLSTATE, message, detail and hint.
///
/// Passwords never appear in any field: connection strings are redacted before they are put
/// into a message.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members, e.g. `error.code == .connectionLost`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The connection could not be opened (server down, wrong host, authentication failed).
        public static let connectionFailed = Code("connectionFailed")
        /// An open connection broke (server restarted or crashed, network cut): safe to reconnect and retry.
        public static let connectionLost = Code("connectionLost")
        /// The connection was closed by this process and used afterwards.
        public static let connectionClosed = Code("connectionClosed")
        /// The server rejected a statement; `sqlState` and `serverMessage` say why.
        public static let server = Code("server")
        /// A value could not be sent (e.g. a NUL byte in text) or a result could not be decoded.
        public static let invalidValue = Code("invalidValue")
        /// The connection settings could not be understood.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The server answered in a way this client does not understand.
        public static let protocolViolation = Code("protocolViolation")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people, saying what failed.
    public var message: String
    /// The five-character SQLSTATE the server reported, e.g. `23505` for a unique violation.
    public var sqlState: String?
    /// The server's primary message.
    public var serverMessage: String?
    /// The server's detail line, if any.
    public var detail: String?
    /// The server's hint, if any.
    public var hint: String?

    /// Creates an error; the server fields are for errors the server reported.
    public init(
        _ code: Code, _ message: String, sqlState: String? = nil, serverMessage: String? = nil,
        detail: String? = nil, hint: String? = nil
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.serverMessage = serverMessage
        self.detail = detail
        self.hint = hint
    }

    /// Whether a new connection and a retry may succeed.
    public var isTransient: Bool {
        if code == .connectionLost || code == .connectionFailed { return true }
        guard let sqlState else { return false }
        // Class 08 (connection exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now),
        // 40001 serialization failure and 40P01 deadlock.
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "40001", "40P01"].contains(sqlState)
    }

    public var description: String {
        var text = message
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        if let detail { text += "\nDETAIL: \(detail)" }
        if let hint { text += "\nHINT: \(hint)" }
        return text
    }
}

extension PostgresError.Code {
    /// SQLSTATE 23505.
    public static let uniqueViolationSQLState = "23505"
}
