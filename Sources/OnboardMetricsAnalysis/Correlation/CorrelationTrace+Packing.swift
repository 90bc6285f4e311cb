/// A ``CorrelationTrace`` as bytes, for ``PackedUnitStore``: the funnel state packed, then the
/// success time when there is one, the candidate events (number, first time) and the context's
/// numbers, each list after its count.
extension CorrelationTrace: PackableUnit {
    init(stepCount: Int) {
        state = FunnelUnitState(stepCount: stepCount)
    }

    var breakdown: String? { state.breakdown }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        state.pack(into: &bytes, breakdownNumber: breakdownNumber)
        bytes.append(successTime == nil ? 0 : 1)
        if let successTime { PackedBytes.append(successTime, to: &bytes) }
        PackedBytes.append(UInt32(truncatingIfNeeded: seen.count), to: &bytes)
        for entry in seen {
            PackedBytes.append(entry.name, to: &bytes)
            PackedBytes.append(entry.time, to: &bytes)
        }
        PackedBytes.append(UInt32(truncatingIfNeeded: context.count), to: &bytes)
        for number in context { PackedBytes.append(number, to: &bytes) }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        state.unpack(from: &reader, breakdown: breakdown)
        successTime = reader.byte() == 0 ? nil : reader.load(Int64.self)
        seen.removeAll(keepingCapacity: true)
        for _ in 0..<Int(reader.load(UInt32.self)) {
            let name = reader.load(UInt32.self)
            seen.append(Seen(name: name, time: reader.load(Int64.self)))
        }
        context.removeAll(keepingCapacity: true)
        for _ in 0..<Int(reader.load(UInt32.self)) { context.append(reader.load(UInt32.self)) }
    }
}
