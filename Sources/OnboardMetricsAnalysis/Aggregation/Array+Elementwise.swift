extension Array where Element == Int {
    /// Adds `other` element by element (both have the same length: one entry per step).
    mutating func addElements(_ other: [Int]) {
        for index in indices where index < other.count { self[index] += other[index] }
    }
}

extension Array where Element == DurationSamples {
    /// Appends `other`'s durations per entry (one entry per step).
    mutating func appendSamples(_ other: [DurationSamples]) {
        for index in indices where index < other.count { self[index].append(contentsOf: other[index]) }
    }
}
