/// What a ``SessionReader`` reads sessions from.
public enum SessionSource: String, Sendable, Hashable, CaseIterable, Codable {
    /// The session traces when the database has them and they can be used (see ``traces``),
    /// the events otherwise.
    case automatic = "auto"
    /// Every events row, streamed in event-id order: the system of record.
    case events
    /// The session traces (`session_traces`, migration 0006), brought up to date first: the same
    /// sessions as the events give. A read throws ``TraceError`` `.unavailable` where they cannot
    /// be used — a database without them, sessions awaiting a rebuild the reading role may not
    /// do, or an event id that is not a UUIDv7 (the events' stream order is then not their time
    /// order, which sessions are cut by) — where ``automatic`` reads the events instead.
    case traces
}
