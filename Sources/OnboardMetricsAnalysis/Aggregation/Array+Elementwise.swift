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
