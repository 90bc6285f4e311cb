import Foundation
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsFormats

/// Request bodies under `Content-Encoding`: gzip and deflate (zlib-wrapped or raw), made by
/// Python's gzip and zlib modules; the decoded size is bounded; other encodings, and more than one
/// coding, are 415.
@Suite struct ContentDecodingTests {
    static let text = #"{"batch":[{"type":"track","event":"App Opened","userId":"u1"}]}"#
    static let gzip =
        "H4sIAAAAAAACA6tWSkosSc5QsoquViqpLEhVslIqKUpMzlbSUUotS80rAfIdCwoU/AtS81JTgIKlxalFnilA0VJDpdrYWgCsE5MBPwAAAA=="
    static let zlib = "eJyrVkpKLEnOULKKrlYqqSxIVbJSKilKTM5W0lFKLUvNKwHyHQsKFPwLUvNSU4CCpcWpRZ4pQNFSQ6Xa2FoAlr4Ubg=="
    static let rawDeflate = "q1ZKSixJzlCyiq5WKqksSFWyUiopSkzOVtJRSi1LzSsB8h0LChT8C1LzUlOAgqXFqUWeKUDRUkOl2thaAA=="

    static func bytes(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64) ?? Data()) }

    static func decode(_ body: [UInt8], _ encoding: String?, limit: Int = 1 << 20) throws -> String {
        String(decoding: try ContentDecoding.decode(body, encoding: encoding, limit: limit), as: UTF8.self)
    }

    @Test func gzipAndBothDeflateFormsDecode() throws {
        #expect(try Self.decode(Self.bytes(Self.gzip), "gzip") == Self.text)
        #expect(try Self.decode(Self.bytes(Self.gzip), "X-GZIP") == Self.text)
        #expect(try Self.decode(Self.bytes(Self.zlib), "deflate") == Self.text)
        #expect(try Self.decode(Self.bytes(Self.rawDeflate), "deflate") == Self.text)
        #expect(try Self.decode(Array(Self.text.utf8), nil) == Self.text)
        #expect(try Self.decode(Array(Self.text.utf8), "identity") == Self.text)
    }

    @Test func decodedSizeIsBoundedWhileInflating() throws {
        let error = #expect(throws: CollectorError.self) {
            try Self.decode(Self.bytes(Self.gzip), "gzip", limit: Self.text.utf8.count - 1)
        }
        #expect(error?.code == .bodyTooLarge)
        #expect(try Self.decode(Self.bytes(Self.gzip), "gzip", limit: Self.text.utf8.count) == Self.text)
    }

    @Test func otherEncodingsAreUnsupportedAndBadStreamsMalformed() throws {
        for encoding in ["br", "zstd", "compress", "gzip, br"] {
            let error = #expect(throws: CollectorError.self) { try Self.decode(Self.bytes(Self.gzip), encoding) }
            #expect(error?.code == .unsupportedEncoding, "\(encoding)")
        }
        // A plain body labelled gzip, a truncated stream, and garbage after the end.
        let gzip = Self.bytes(Self.gzip)
        for body in [Array(Self.text.utf8), Array(gzip.dropLast(12)), gzip + [1, 2, 3]] {
            let error = #expect(throws: CollectorError.self) { try Self.decode(body, "gzip") }
            #expect(error?.code == .malformedBatch)
        }
    }

    /// Each layer's output is bounded, not the number of layers: one coding at most, `identity`
    /// entries aside. `twice` is the text gzipped twice (Python's `gzip.compress`, twice).
    @Test func moreThanOneCodingIsUnsupported() throws {
        let twice =
            "H4sIAGfOCWsC/wFPALD/H4sIAGfOCWsC/6tWSkosSc5QsoquViqpLEhVslIqKUpMzlbSUUotS80rAfIdCwoU/AtS81JTgIKlxalFnilA0VJDpdrYWgCsE5MBPwAAAE6TKs9PAAAA"
        #expect(try Self.decode(Self.bytes(Self.gzip), "gzip, identity") == Self.text)
        for encoding in ["gzip, gzip", "deflate,gzip", "gzip, identity, gzip"] {
            let error = #expect(throws: CollectorError.self) { try Self.decode(Self.bytes(twice), encoding) }
            #expect(error?.code == .unsupportedEncoding, "\(encoding)")
        }
    }
}
