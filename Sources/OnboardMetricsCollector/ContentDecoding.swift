import CZlib
import Foundation
import OnboardMetricsFormats

/// Undoes a request body's `Content-Encoding` (RFC 9110 §8.4): `gzip` (also `x-gzip`) and
/// `deflate` (zlib-wrapped as RFC 9110 says, or raw, as some clients send it), or none
/// (`identity`). The decompressed size is bounded while inflating, so a small body that expands
/// to gigabytes (a zip bomb) is refused after at most `limit` bytes of output.
package enum ContentDecoding {
    /// The body as sent by the client, decoded.
    /// - Parameters:
    ///   - encoding: the `Content-Encoding` header (nil or empty: none); `identity` entries of
    ///     a list such as `gzip, identity` count for nothing, and one other coding at most is taken.
    ///   - limit: most bytes of decoded body.
    /// - Throws: ``CollectorError`` `.unsupportedEncoding` (415) for another encoding,
    ///   `.bodyTooLarge` (413) past `limit`, `.malformedBatch` (400) for a corrupt stream.
    package static func decode(_ body: [UInt8], encoding: String?, limit: Int) throws -> [UInt8] {
        let codings = (encoding ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty && $0 != "identity" }
        // One coding at most: each layer is bounded, but not their number, and a body of 8,000
        // stored gzip layers cost a second of CPU before the key was even checked (a review).
        guard codings.count <= 1 else {
            throw CollectorError(
                .unsupportedEncoding,
                "Content-Encoding lists \(codings.count) codings; send the body as is, or gzip or deflate it once")
        }
        guard let coding = codings.first else { return body }
        switch coding {
        case "gzip", "x-gzip": return try inflate(body, windowBits: 16 + 15, limit: limit, name: "gzip")
        case "deflate":
            // RFC 9110's "deflate" is the zlib format; a raw deflate stream has no zlib header.
            let zlibWrapped =
                body.count >= 2 && body[0] & 0x0F == 8 && (UInt16(body[0]) << 8 | UInt16(body[1])) % 31 == 0
            return try inflate(body, windowBits: zlibWrapped ? 15 : -15, limit: limit, name: "deflate")
        default:
            throw CollectorError(
                .unsupportedEncoding,
                "Content-Encoding \(coding) is not supported; send the body as is, gzip or deflate")
        }
    }

    /// Inflates `input` with zlib, stopping with an error once the output passes `limit`.
    private static func inflate(_ input: [UInt8], windowBits: Int32, limit: Int, name: String) throws -> [UInt8] {
        var stream = z_stream()
        guard onboardmetrics_inflate_init(&stream, windowBits) == Z_OK else {
            throw CollectorError(.malformedBatch, "cannot start \(name) decoding")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var status = Z_OK
        try input.withUnsafeBufferPointer { source in
            // zlib does not write through next_in; the cast only satisfies its C signature.
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while status != Z_STREAM_END {
                status = buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(chunk)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    throw CollectorError(
                        .bodyTooLarge,
                        "the \(name) body expands to more than \(limit) bytes; split the batch and send the parts")
                }
                output.append(contentsOf: buffer[0..<produced])
                switch status {
                case Z_OK, Z_STREAM_END: continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw CollectorError(.malformedBatch, "the \(name) body is truncated")
                default:
                    throw CollectorError(.malformedBatch, "the body is not valid \(name) data")
                }
            }
            if stream.avail_in > 0 {
                // gzip allows members back to back; anything else after the end is garbage.
                throw CollectorError(.malformedBatch, "text after the end of the \(name) data")
            }
        }
        return output
    }
}
