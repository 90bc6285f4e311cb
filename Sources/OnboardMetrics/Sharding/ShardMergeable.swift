/// An aggregate a sharded read computes once per shard (or per bucket range) and combines: the
/// result of adding sessions to several aggregates and merging them equals adding all the
/// sessions to one, whatever the order — counts add, samples for exact quantiles concatenate,
/// per-user state merges by user (a user's sessions may sit on different shards).
package protocol ShardMergeable: Sendable {
    /// Counts one recorded session.
    mutating func add(_ session: RecordedSession) throws
    /// Adds another aggregate, built with the same options, of other sessions.
    mutating func merge(_ other: Self)
}

extension Dictionary {
    /// Merges `other` into this dictionary, combining the values of keys both have.
    mutating func mergeValues(_ other: [Key: Value], _ combine: (inout Value, Value) -> Void) {
        for (key, value) in other {
            if var existing = removeValue(forKey: key) {
                combine(&existing, value)
                self[key] = existing
            } else {
                self[key] = value
            }
        }
    }
}

extension Array where Element == Int {
    /// Adds `other` element by element (both have the same length: one entry per step).
    mutating func addElements(_ other: [Int]) {
        for index in indices where index < other.count { self[index] += other[index] }
    }
}

extension Array where Element == [Double] {
    /// Appends `other`'s samples per entry.
    mutating func appendSamples(_ other: [[Double]]) {
        for index in indices where index < other.count { self[index] += other[index] }
    }
}

extension SessionSelection {
    /// Adds what another selection passed over.
    mutating func merge(_ other: SessionSelection) {
        otherFlowSessions += other.otherFlowSessions
    }
}
