/// What a generator run produced, counted while writing; part of the parameters file.
public struct GenerationSummary: Codable, Sendable, Hashable {
    /// Sessions generated.
    public var sessions = 0
    /// Distinct users.
    public var users = 0
    /// Lines written, duplicates included.
    public var lines = 0
    /// Distinct events (distinct event ids).
    public var events = 0
    /// Distinct events by kind (raw value).
    public var eventsByKind: [String: Int] = [:]
    /// Sessions whose root flow completed.
    public var completedSessions = 0
    /// Sessions cut off at the end of the period (in progress).
    public var inProgressSessions = 0
    /// Extra copies written of duplicated events.
    public var duplicates = 0
    /// Events sent late and written at the end of the file.
    public var lateEvents = 0
    /// Sessions with two adjacent lines swapped.
    public var outOfOrderSessions = 0
    /// Sessions with a skewed client clock.
    public var skewedSessions = 0
    /// Sessions per experiment variant.
    public var variants: [String: Int] = [:]

    /// An empty summary.
    public init() {}
}
