/// What a read hands sessions to, one at a time: each source of a ``ShardedReader`` gets a
/// consumer of its own (the analysis layer's aggregators are consumers).
public protocol SessionConsumer: Sendable {
    /// Takes one recorded session, complete.
    mutating func add(_ session: RecordedSession) throws
}
