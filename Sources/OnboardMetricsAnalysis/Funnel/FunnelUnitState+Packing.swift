/// A ``FunnelUnitState`` as bytes, for ``FunnelUnitStore``: flags as bits, a time only where the
/// unit has one, the breakdown as a number the store gives it. Exact: every field, every time's
/// bits, and `nil` apart from a value, come back as they were.
///
/// Layout (little-endian): one byte of presence and status; the start; the last step, the last
/// start and the breakdown's number when present; six bit sets of `steps` bits (eligible, viewed,
/// completed, skipped, has a time from the start, has a time on the step); the times present;
/// the two origin arrays when present.
extension FunnelUnitState {
    private enum Bit {
        static let lastStep: UInt8 = 1 << 2
        static let lastStart: UInt8 = 1 << 3
        static let breakdown: UInt8 = 1 << 4
        static let fromStartOrigins: UInt8 = 1 << 5
        static let onStepOrigins: UInt8 = 1 << 6
    }

    /// Appends the packed state to `bytes`; `breakdownNumber` is the store's number for
    /// `breakdown` (read only when it is not `nil`).
    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        var header: UInt8
        switch status {
        case .completed: header = 0
        case .dropped: header = 1
        case .inProgress: header = 2
        }
        if lastStep != nil { header |= Bit.lastStep }
        if lastStart != nil { header |= Bit.lastStart }
        if breakdown != nil { header |= Bit.breakdown }
        if fromStartOrigins != nil { header |= Bit.fromStartOrigins }
        if onStepOrigins != nil { header |= Bit.onStepOrigins }
        bytes.append(header)
        Self.append(start, to: &bytes)
        if let lastStep { Self.append(Int64(lastStep), to: &bytes) }
        if let lastStart { Self.append(lastStart, to: &bytes) }
        if breakdown != nil { Self.append(breakdownNumber, to: &bytes) }
        let count = eligible.count
        Self.appendBits(count, to: &bytes) { eligible[$0] }
        Self.appendBits(count, to: &bytes) { viewed[$0] }
        Self.appendBits(count, to: &bytes) { completed[$0] }
        Self.appendBits(count, to: &bytes) { skipped[$0] }
        Self.appendBits(count, to: &bytes) { !secondsFromStart[$0].isNaN }
        Self.appendBits(count, to: &bytes) { !secondsOnStep[$0].isNaN }
        for seconds in secondsFromStart where !seconds.isNaN { Self.append(seconds.bitPattern, to: &bytes) }
        for seconds in secondsOnStep where !seconds.isNaN { Self.append(seconds.bitPattern, to: &bytes) }
        for origin in fromStartOrigins ?? [] { Self.append(origin, to: &bytes) }
        for origin in onStepOrigins ?? [] { Self.append(origin, to: &bytes) }
    }

    /// Reads a state `pack(into:breakdownNumber:)` wrote at `offset` of `bytes` into `self`
    /// (whose step count it must have), keeping the arrays' storage; `breakdown` gives the
    /// string of a breakdown number.
    mutating func unpack(from bytes: UnsafeRawBufferPointer, at offset: Int, breakdown name: (UInt32) -> String) {
        var reader = Reader(bytes: bytes, offset: offset)
        let header = reader.byte()
        switch header & 3 {
        case 0: status = .completed
        case 1: status = .dropped
        default: status = .inProgress
        }
        start = reader.load(Int64.self)
        lastStep = header & Bit.lastStep != 0 ? Int(reader.load(Int64.self)) : nil
        lastStart = header & Bit.lastStart != 0 ? reader.load(Int64.self) : nil
        breakdown = header & Bit.breakdown != 0 ? name(reader.load(UInt32.self)) : nil
        let count = eligible.count
        reader.bits(count) { eligible[$0] = $1 }
        reader.bits(count) { viewed[$0] = $1 }
        reader.bits(count) { completed[$0] = $1 }
        reader.bits(count) { skipped[$0] = $1 }
        reader.bits(count) { secondsFromStart[$0] = $1 ? 0 : .nan }
        reader.bits(count) { secondsOnStep[$0] = $1 ? 0 : .nan }
        for index in 0..<count where !secondsFromStart[index].isNaN {
            secondsFromStart[index] = Double(bitPattern: reader.load(UInt64.self))
        }
        for index in 0..<count where !secondsOnStep[index].isNaN {
            secondsOnStep[index] = Double(bitPattern: reader.load(UInt64.self))
        }
        fromStartOrigins = header & Bit.fromStartOrigins != 0 ? (0..<count).map { _ in reader.load(Int64.self) } : nil
        onStepOrigins = header & Bit.onStepOrigins != 0 ? (0..<count).map { _ in reader.load(Int64.self) } : nil
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func appendBits(_ count: Int, to bytes: inout [UInt8], _ isSet: (Int) -> Bool) {
        var byte: UInt8 = 0
        for index in 0..<count {
            if isSet(index) { byte |= 1 << UInt8(index & 7) }
            if index & 7 == 7 || index == count - 1 {
                bytes.append(byte)
                byte = 0
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int

        mutating func byte() -> UInt8 {
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func load<Value: FixedWidthInteger>(_: Value.Type) -> Value {
            defer { offset += MemoryLayout<Value>.size }
            return Value(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Value.self))
        }

        mutating func bits(_ count: Int, _ set: (Int, Bool) -> Void) {
            var byte: UInt8 = 0
            for index in 0..<count {
                if index & 7 == 0 { byte = self.byte() }
                set(index, byte & (1 << UInt8(index & 7)) != 0)
            }
        }
    }
}
