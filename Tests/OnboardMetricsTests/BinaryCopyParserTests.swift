import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

@Suite struct BinaryCopyParserTests {
    /// A stream written by BinaryCopyWriter: three rows of (int4, text or NULL).
    static func stream() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var writer = BinaryCopyWriter(chunkSize: 1) { bytes += $0 }
        for (number, text) in [(1, "a"), (2, nil), (3, "ccc")] as [(Int32, String?)] {
            writer.beginRow(fieldCount: 2)
            writer.write(int32: number)
            try writer.write(text: text)
            try writer.endRow()
        }
        try writer.finish()
        return bytes
    }

    @Test(arguments: [1, 2, 3, 7, 19, 1000])
    func parsesWhateverTheChunkBoundaries(chunkSize: Int) throws {
        let bytes = try Self.stream()
        var parser = BinaryCopyParser()
        var rows: [(Int32?, String?)] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + chunkSize, bytes.count)
            try bytes[start..<end].withUnsafeBytes { chunk in
                try parser.consume(chunk) { row in rows.append((try row.int32(0), row.text(1))) }
            }
            start = end
        }
        try parser.finish()
        #expect(rows.map(\.0) == [1, 2, 3])
        #expect(rows.map(\.1) == ["a", nil, "ccc"])
    }

    @Test func truncatedStreamIsAnError() throws {
        let bytes = try Self.stream().dropLast(3)
        var parser = BinaryCopyParser()
        try Array(bytes).withUnsafeBytes { try parser.consume($0) { _ in } }
        #expect(throws: PostgresError.self) { try parser.finish() }
    }

    @Test func badSignatureIsAnError() throws {
        var bytes = try Self.stream()
        bytes[0] = UInt8(ascii: "X")
        var parser = BinaryCopyParser()
        #expect(throws: PostgresError.self) {
            try bytes.withUnsafeBytes { try parser.consume($0) { _ in } }
        }
    }

    @Test func wrongSizeForTypeIsAnError() throws {
        let bytes = try Self.stream()
        var parser = BinaryCopyParser()
        #expect(throws: PostgresError.self) {
            try bytes.withUnsafeBytes { try parser.consume($0) { row in _ = try row.int64(0) } }
        }
    }
}
