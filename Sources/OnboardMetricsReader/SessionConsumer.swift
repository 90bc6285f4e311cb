/// What a read hands sessions to, one at a time: each source of a ``ShardedReader`` gets a
/// consumer of its own (the analysis layer's aggregators are consumers).
public protocol SessionConsumer: Sendable {
    /// Takes one recorded session, complete.
    mutating func add(_ session: RecordedSession) throws

    /// Takes sessions kept in memory (``SessionCache``), each as ``add(_:)`` would.
    mutating func add(contentsOf sessions: ArraySlice<RecordedSession>) throws
}

extension SessionConsumer {
    /// Each session through ``add(_:)``. Inlinable so that each consumer gets its own copy of the
    /// loop, specialized, and through a buffer so the session is lent, not copied: the copies
    /// (retaining context objects that sessions share, from two threads) were a sixth of a warm
    /// report's time from memory.
    @inlinable
    public mutating func add(contentsOf sessions: ArraySlice<RecordedSession>) throws {
        try sessions.withUnsafeBufferPointer { buffer in
            for index in buffer.indices { try add(buffer[index]) }
        }
    }
}
