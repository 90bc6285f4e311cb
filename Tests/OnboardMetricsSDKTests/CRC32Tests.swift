import Testing

@testable import OnboardMetricsSDK

/// The spool's checksum: the published check value of CRC-32/ISO-HDLC, and agreement with the
/// bit-at-a-time definition on every length around the eight-byte steps.
@Suite struct CRC32Tests {
    /// CRC-32 computed from its definition, one bit at a time (reflected polynomial 0xEDB88320).
    static func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func theCheckValueOfTheCatalogue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test func agreesWithTheBitwiseDefinitionOnEveryLengthAndOffset() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes: [UInt8] = (0..<300).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for start in 0..<9 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                let slice = Array(bytes[start..<end])
                #expect(CRC32.checksum(slice) == Self.bitwise(slice), "bytes \(start)..<\(end)")
            }
        }
    }
}
