/// Writing and reading the little-endian fields of a ``PackableUnit``'s bytes.
enum PackedBytes {
    static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
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

        mutating func bits(_ count: Int, _ set: (Int, Bool) -> Void) {
            var byte: UInt8 = 0
            for index in 0..<count {
                if index & 7 == 0 { byte = self.byte() }
                set(index, byte & (1 << UInt8(index & 7)) != 0)
            }
        }
    }
}
