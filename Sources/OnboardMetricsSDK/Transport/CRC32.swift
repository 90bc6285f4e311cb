/// CRC-32 (IEEE 802.3, the one zlib and PNG use), to detect torn or corrupt spool records.
///
/// Slicing-by-8 (eight bytes a step through eight tables) rather than a byte at a time: the
/// byte-wise loop was 8 % of the outbox's time in `scripts/bench-sdk.sh`. Foundation has no CRC,
/// and the SDK links nothing else.
package enum CRC32 {
    /// Eight tables of 256 entries, one after the other: entry `b` of table `k` is the CRC
    /// contribution of byte `b` followed by `k` more bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for index in 256..<(8 * 256) {
            let previous = tables[index - 256]
            tables[index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
        }
        return tables
    }()

    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 8 <= count {
                let value =
                    crc
                    ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                        | UInt32(bytes[index + 3]) << 24)
                crc =
                    table[7 * 256 + Int(value & 0xFF)] ^ table[6 * 256 + Int((value >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((value >> 16) & 0xFF)] ^ table[4 * 256 + Int(value >> 24)]
                    ^ table[3 * 256 + Int(bytes[index + 4])] ^ table[2 * 256 + Int(bytes[index + 5])]
                    ^ table[256 + Int(bytes[index + 6])] ^ table[Int(bytes[index + 7])]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
