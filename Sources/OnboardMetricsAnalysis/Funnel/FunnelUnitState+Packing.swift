/// A ``FunnelUnitState`` as bytes, for ``PackedUnitStore``: flags as bits, a time only where the
/// unit has one, the breakdown as a number the store gives it. Exact: every field, every time's
/// bits, and `nil` apart from a value, come back as they were.
///
/// Layout: its outcome (`FunnelOutcome+Packing`: status, start and last step, with this state's
/// presence bits in the header); when present, the last start (zigzag varint of its difference
/// from the start) and the breakdown's number (varint); six bit sets of `steps` bits (eligible, viewed,
/// completed, skipped, has a time from the start, has a time on the step); the times present
/// (zigzag varints of their microseconds: 3-5 bytes for seconds to minutes); the two origin
/// arrays when present (each origin a zigzag varint of its difference from the start).
/// Differences wrap, so every `Int64` comes back.
extension FunnelUnitState: PackableUnit {
    /// Bits 3 to 6 of the outcome's header (bits 0 to 2 are the outcome's own).
    private enum Bit {
        static let lastStart: UInt8 = 1 << 3
        static let breakdown: UInt8 = 1 << 4
        static let fromStartOrigins: UInt8 = 1 << 5
        static let onStepOrigins: UInt8 = 1 << 6
    }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        var flags: UInt8 = 0
        if lastStart != nil { flags |= Bit.lastStart }
        if breakdown != nil { flags |= Bit.breakdown }
        if fromStartOrigins != nil { flags |= Bit.fromStartOrigins }
        if onStepOrigins != nil { flags |= Bit.onStepOrigins }
        FunnelOutcome(self).pack(into: &bytes, previousStart: 0, flags: flags)
        if let lastStart { PackedBytes.appendZigZag(lastStart &- start, to: &bytes) }
        if breakdown != nil { PackedBytes.appendVarint(UInt64(breakdownNumber), to: &bytes) }
        let count = eligible.count
        PackedBytes.appendBits(count, to: &bytes) { eligible[$0] }
        PackedBytes.appendBits(count, to: &bytes) { viewed[$0] }
        PackedBytes.appendBits(count, to: &bytes) { completed[$0] }
        PackedBytes.appendBits(count, to: &bytes) { skipped[$0] }
        PackedBytes.appendBits(count, to: &bytes) { microsecondsFromStart[$0] != Self.none }
        PackedBytes.appendBits(count, to: &bytes) { microsecondsOnStep[$0] != Self.none }
        for value in microsecondsFromStart where value != Self.none { PackedBytes.appendZigZag(value, to: &bytes) }
        for value in microsecondsOnStep where value != Self.none { PackedBytes.appendZigZag(value, to: &bytes) }
        for origin in fromStartOrigins ?? [] { PackedBytes.appendZigZag(origin &- start, to: &bytes) }
        for origin in onStepOrigins ?? [] { PackedBytes.appendZigZag(origin &- start, to: &bytes) }
    }

    /// Reads a state into `self`, which has the flow's step count, keeping the arrays' storage.
    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown name: (UInt32) -> String) {
        let (outcome, header) = FunnelOutcome.unpack(from: &reader, previousStart: 0)
        (status, start, lastStep) = (outcome.status, outcome.start, outcome.lastStep)
        lastStart = header & Bit.lastStart != 0 ? start &+ reader.zigZag() : nil
        breakdown = header & Bit.breakdown != 0 ? name(UInt32(truncatingIfNeeded: reader.varint())) : nil
        let count = eligible.count
        reader.bits(count) { eligible[$0] = $1 }
        reader.bits(count) { viewed[$0] = $1 }
        reader.bits(count) { completed[$0] = $1 }
        reader.bits(count) { skipped[$0] = $1 }
        reader.bits(count) { microsecondsFromStart[$0] = $1 ? 0 : Self.none }
        reader.bits(count) { microsecondsOnStep[$0] = $1 ? 0 : Self.none }
        for index in 0..<count where microsecondsFromStart[index] != Self.none {
            microsecondsFromStart[index] = reader.zigZag()
        }
        for index in 0..<count where microsecondsOnStep[index] != Self.none {
            microsecondsOnStep[index] = reader.zigZag()
        }
        let start = start
        fromStartOrigins =
            header & Bit.fromStartOrigins != 0 ? (0..<count).map { _ in start &+ reader.zigZag() } : nil
        onStepOrigins = header & Bit.onStepOrigins != 0 ? (0..<count).map { _ in start &+ reader.zigZag() } : nil
    }
}

extension FunnelUnitState.Status {
    /// The status in the low two bits of a packed header byte.
    var packed: UInt8 {
        switch self {
        case .completed: 0
        case .dropped: 1
        case .inProgress: 2
        }
    }

    /// The status of a header byte's low two bits (`packed`).
    init(packed header: UInt8) {
        switch header & 3 {
        case 0: self = .completed
        case 1: self = .dropped
        default: self = .inProgress
        }
    }
}
