/// A ``CorrelationTrace`` as bytes, for ``PackedUnitStore``: the funnel state packed, then the
/// success time when there is one, the candidate events (number, first time) and the context's
/// numbers, each list after its count. Counts and numbers as varints, times as zigzag varints of
/// their difference from the state's start (wrapping, so every `Int64` comes back): a candidate
/// seen a minute after the start takes 5 bytes, not 12.
extension CorrelationTrace: PackableUnit {
    init(stepCount: Int) {
        state = FunnelUnitState(stepCount: stepCount)
    }

    var breakdown: String? { state.breakdown }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        state.pack(into: &bytes, breakdownNumber: breakdownNumber)
        let start = state.start
        bytes.append(successTime == nil ? 0 : 1)
        if let successTime { PackedBytes.appendZigZag(successTime &- start, to: &bytes) }
        PackedBytes.appendVarint(UInt64(seen.count), to: &bytes)
        for entry in seen {
            PackedBytes.appendVarint(UInt64(entry.name), to: &bytes)
            PackedBytes.appendZigZag(entry.time &- start, to: &bytes)
        }
        PackedBytes.appendVarint(UInt64(context.count), to: &bytes)
        for number in context { PackedBytes.appendVarint(UInt64(number), to: &bytes) }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        state.unpack(from: &reader, breakdown: breakdown)
        let start = state.start
        successTime = reader.byte() == 0 ? nil : start &+ reader.zigZag()
        seen.removeAll(keepingCapacity: true)
        for _ in 0..<reader.varint() {
            let name = UInt32(truncatingIfNeeded: reader.varint())
            seen.append(Seen(name: name, time: start &+ reader.zigZag()))
        }
        context.removeAll(keepingCapacity: true)
        for _ in 0..<reader.varint() { context.append(UInt32(truncatingIfNeeded: reader.varint())) }
    }
}
