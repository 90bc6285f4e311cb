/// A person's ``ExperimentAggregator/UnitRecord`` as bytes, for ``PackedUnitStore``: whether it is
/// mixed, the variant's name (a string, not a number: merging settles a tie by it), the exposure
/// time, then the outcomes as bits. The store's "step count" is the number of metrics. With each
/// record a dictionary value holding an array of its own, `experiment --per user` peaked at 249 MB
/// at 10M events (765k people); packed, at 132 MB.
extension ExperimentAggregator.UnitRecord: PackableUnit {
    init(stepCount: Int) {
        self.init(
            variant: "", exposedAt: 0, eligible: Array(repeating: false, count: stepCount),
            converted: Array(repeating: false, count: stepCount))
    }

    var breakdown: String? { nil }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        bytes.append(mixed ? 1 : 0)
        PackedBytes.appendString(variant, to: &bytes)
        PackedBytes.append(exposedAt, to: &bytes)
        PackedBytes.appendBits(outcomes.count, to: &bytes) { outcomes[$0] }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        mixed = reader.byte() != 0
        variant = reader.string() ?? ""
        exposedAt = reader.load(Int64.self)
        reader.bits(outcomes.count) { outcomes[$0] = $1 }
    }
}
