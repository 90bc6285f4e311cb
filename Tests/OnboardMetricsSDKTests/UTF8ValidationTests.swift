import Testing

@testable import OnboardMetricsSDK

/// Well-formed UTF-8 per RFC 3629 (issue 14, defect 7).
@Suite struct UTF8ValidationTests {
    static func offset(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset($0) }
    }

    @Test func acceptsWellFormedText() {
        #expect(Self.offset(Array("plain ascii".utf8)) == nil)
        #expect(Self.offset(Array("é ü 中文 😀 \u{10FFFF}".utf8)) == nil)
        #expect(Self.offset([]) == nil)
    }

    @Test(
        arguments: [
            ([0xFF], 0), ([0x61, 0xC3], 1), ([0xC0, 0xAF], 0), ([0xE0, 0x80, 0xAF], 0), ([0xED, 0xA0, 0x80], 0),
            ([0xF4, 0x90, 0x80, 0x80], 0), ([0x61, 0x62, 0xE2, 0x82], 2), ([0xC3, 0x28], 0), ([0x80], 0),
        ] as [([UInt8], Int)])
    func refusesIllFormedSequencesAtTheirFirstByte(bytes: [UInt8], offset: Int) {
        #expect(Self.offset(bytes) == offset)
    }
}
