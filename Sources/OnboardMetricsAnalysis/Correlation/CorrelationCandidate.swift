/// Something a unit may have that could go with success or failure: an event it recorded (by kind
/// and name) or a value of its context.
public struct CorrelationCandidate: Sendable, Hashable, Codable, Comparable {
    /// Which of the two it is.
    public enum Kind: String, Sendable, Hashable, Codable, Comparable {
        /// An event, named `kind` or `kind:name` (e.g. `feature_used:share`,
        /// `experiment_exposure:paywall=b`).
        case event
        /// A context value, named `key=value` (e.g. `platform=ios`).
        case property

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var kind: Kind
    public var name: String

    /// Creates a candidate.
    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.kind, lhs.name) < (rhs.kind, rhs.name) }
}
