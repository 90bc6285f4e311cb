/// A named set of sessions or people that reports can be restricted to (`--cohort NAME`).
public struct Cohort: Sendable, Hashable {
    /// What a cohort's members are.
    public enum Unit: String, Sendable, Hashable, Codable {
        /// Session ids (lowercase UUIDs).
        case session
        /// Person ids: a user id, or the id that linked ids were merged into.
        case user
    }

    public var name: String
    public var unit: Unit
    /// Where it came from, e.g. "users --flow health-study --step consent --status dropped".
    public var description: String
    public var members: Set<String>

    /// Creates a cohort.
    public init(name: String, unit: Unit, description: String = "", members: Set<String>) {
        self.name = name
        self.unit = unit
        self.description = description
        self.members = members
    }
}
