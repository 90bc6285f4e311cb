/// Writing and reading the little-endian fields of a ``PackableUnit``'s bytes.
enum PackedBytes {
    static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// `value` in seven-bit groups, low first, the high bit of a byte saying another follows:
    /// one byte below 128. Used where most values are small (deltas, counts, numbers).
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed value as a varint, small magnitudes small: 0, -1, 1, -2 … as 0, 1, 2, 3 ….
    static func appendZigZag(_ value: Int64, to bytes: inout [UInt8]) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
    }

    /// An optional string as its UTF-8 length plus one (0 for `nil`), then its bytes. For
    /// strings a unit merges by (a tie of values settled by the string itself), which a number
    /// given in the order met could not settle alike in every read order.
    static func appendString(_ string: String?, to bytes: inout [UInt8]) {
        guard let string else { return bytes.append(0) }
        var copy = string
        copy.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count) + 1, to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// `count` bits, eight to a byte: bit `index` is `isSet(index)`.
    static func appendBits(_ count: Int, to bytes: inout [UInt8], _ isSet: (Int) -> Bool) {
        var byte: UInt8 = 0
        for index in 0..<count {
            if isSet(index) { byte |= 1 << UInt8(index & 7) }
            if index & 7 == 7 || index == count - 1 {
                bytes.append(byte)
                byte = 0
            }
        }
    }

    /// Reads what `append` and `appendBits` wrote, in order, from `offset` on.
    struct Reader {
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

        mutating func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = self.byte()
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        mutating func zigZag() -> Int64 {
            let value = varint()
            return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }

        mutating func string() -> String? {
            let length = Int(varint())
            guard length > 0 else { return nil }
            defer { offset += length - 1 }
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length - 1)]), as: UTF8.self)
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
