/// An error managing or checking dashboard viewers.
public struct ViewerError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A viewer's name is empty, too long, holds control characters or a colon.
        public static let invalidName = Code("invalid_viewer_name")
        /// A valid viewer already has that name.
        public static let nameTaken = Code("viewer_name_taken")
        /// No valid viewer has that name.
        public static let unknownViewer = Code("unknown_viewer")
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
