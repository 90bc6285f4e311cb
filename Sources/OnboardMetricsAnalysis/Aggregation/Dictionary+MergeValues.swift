extension Dictionary {
    /// Merges `other` into this dictionary, combining the values of keys both have; each value of
    /// `other` is first passed to `adapt` (to renumber what the two number differently).
    mutating func mergeValues(
        _ other: [Key: Value], adapting adapt: (inout Value) -> Void = { _ in }, _ combine: (inout Value, Value) -> Void
    ) {
        for (key, theirs) in other {
            var value = theirs
            adapt(&value)
            if var existing = removeValue(forKey: key) {
                combine(&existing, value)
                self[key] = existing
            } else {
                self[key] = value
            }
        }
    }
}
