import Foundation
import Testing

@testable import OnboardMetricsSDK

/// `StableID.parseUUID` reads ids from raw bytes; Foundation's `UUID(uuidString:)` is the second
/// method it is checked against.
@Suite struct StableIDTests {
    private func parse(_ text: String) -> UUID? {
        Array(text.utf8).withUnsafeBufferPointer { StableID.parseUUID($0) }
    }

    @Test func everyHexDigitInEitherCaseReadsAsFoundationReadsIt() {
        // Knuth's MMIX linear congruential generator, top byte: every byte value, reproducibly.
        var state: UInt64 = 16
        for _ in 0..<2_000 {
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
            }
            let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
            for text in [uuid.uuidString, uuid.uuidString.lowercased()] {
                #expect(parse(text) == uuid, "\(text)")
                #expect(parse(text) == UUID(uuidString: text))
            }
        }
        #expect(
            parse("0123ABCD-89ab-cdef-0000-FFFFffff9999") == UUID(uuidString: "0123ABCD-89ab-cdef-0000-FFFFffff9999"))
    }

    @Test func everyByteValueIsADigitOnlyWhenItIsHex() {
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for byte in UInt8.min...UInt8.max {
            for position in [0, 17, 35] {
                var bytes = Array("0123abcd-89ab-cdef-0000-ffffffff9999".utf8)
                bytes[position] = byte
                let parsed = bytes.withUnsafeBufferPointer { StableID.parseUUID($0) }
                if hex.contains(byte) {
                    #expect(parsed == UUID(uuidString: String(decoding: bytes, as: UTF8.self)), "byte \(byte)")
                } else {
                    #expect(parsed == nil, "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test(arguments: [
        "0123abcd-89ab-cdef-0000-ffffffff999g", "0123abcd-89ab-cdef-0000-ffffffff999:",
        "0123abcd-89ab-cdef-0000-ffffffff999/", "0123abcd-89ab-cdef-0000-ffffffff999@",
        "0123abcd-89ab-cdef-0000-ffffffff999`", "g123abcd-89ab-cdef-0000-ffffffff9999",
        "0123abcd-89ab-cdeg-0000-ffffffff9999", "0123abcd-89ab-cdef-0000-ffffffff99 9",
        "0123abcd089ab-cdef-0000-ffffffff9999", "0123abcd-89ab-cdef-0000-ffffffff99999",
        "0123abcd-89ab-cdef-0000-ffffffff999", "", "0123abcd-89ab-cdef-0000-ffffffff99\u{e9}",
    ])
    func anythingElseIsNotAUUID(_ text: String) {
        // Not checked against Foundation here: on Linux it reads a space as a zero digit.
        #expect(parse(text) == nil)
    }
}
