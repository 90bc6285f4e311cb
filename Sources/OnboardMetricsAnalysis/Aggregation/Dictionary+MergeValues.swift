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
