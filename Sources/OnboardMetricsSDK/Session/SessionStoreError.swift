/// A problem of a ``SessionStore`` with its folder or with what the app asked of it.
///
/// File problems never stop the app: a session or identity file that cannot be read is set
/// aside and the store starts fresh, and one that cannot be written leaves the session running
/// in memory; both are kept in ``SessionStore/diagnostics`` (and logged by ``OnboardMetricsLog``).
public struct SessionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A file of the store is not what the store writes (torn, edited, another format); it was
        /// moved aside (`NAME.corrupt`) and the store started fresh.
        public static let corrupt = Code("corrupt")
        /// A file or the folder could not be read or written.
        public static let io = Code("io")
        /// The store's catalog has no flow of that id.
        public static let unknownFlow = Code("unknownFlow")
        /// A saved session does not fit the app's flow any more (another version); it was closed
        /// as abandoned.
        public static let flowChanged = Code("flowChanged")
    }

    /// The kind of problem.
    public var code: Code
    /// What happened, for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
