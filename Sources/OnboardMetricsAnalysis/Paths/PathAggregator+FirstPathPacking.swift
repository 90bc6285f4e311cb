/// A person's first paths between two steps as bytes, for ``PackedUnitStore``: the start, the
/// path count, and each path's length and label numbers, as varints.
///
/// Why: as a dictionary entry holding an array of strings a person, `--between --per user` took
/// 328 MB at 10M events.
extension PathAggregator.FirstPath: PackableUnit {
    init(stepCount: Int) {}

    var breakdown: String? { nil }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        PackedBytes.appendZigZag(start, to: &bytes)
        PackedBytes.appendVarint(UInt64(paths.count), to: &bytes)
        for path in paths {
            PackedBytes.appendVarint(UInt64(path.count), to: &bytes)
            for label in path { PackedBytes.appendVarint(UInt64(label), to: &bytes) }
        }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        start = reader.zigZag()
        paths.removeAll(keepingCapacity: true)
        for _ in 0..<Int(reader.varint()) {
            paths.append((0..<Int(reader.varint())).map { _ in UInt32(truncatingIfNeeded: reader.varint()) })
        }
    }

    /// Keeps the earlier start's paths; on a tie, both sides' (the report chooses by label).
    mutating func merge(_ other: Self) {
        if other.start < start {
            self = other
        } else if other.start == start {
            paths.append(contentsOf: other.paths)
        }
    }
}
