/// Why a correlation report cannot be built.
public struct CorrelationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// `--step` names no step of the flow.
        case unknownStep
    }

    public var code: Code
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
