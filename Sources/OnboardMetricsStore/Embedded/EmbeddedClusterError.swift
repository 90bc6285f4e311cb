/// The embedded local cluster could not be created, started or stopped: a `Code` saying where,
/// and a message with the reason (and the server log's last lines when it did not start).
public struct EmbeddedClusterError: Error, Sendable, CustomStringConvertible {
    /// Where it failed. Compare with the static members, e.g. `error.code == .programsMissing`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// PostgreSQL's server programs (`initdb`, `pg_ctl`) are not installed; the message names the package.
        public static let programsMissing = Code("programsMissing")
        /// `initdb`, `pg_ctl` or the server failed, or could not be run.
        public static let serverFailed = Code("serverFailed")
        /// The data folder, its configuration or its lock file cannot be created or used.
        public static let dataFolder = Code("dataFolder")
    }

    /// Where it failed.
    public var code: Code
    /// A sentence for people, with the reason.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
