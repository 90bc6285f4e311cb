import Foundation

/// `Codable` for events nested in an app's own types. It is an adapter over the one event format,
/// not a second reading of it: decoding goes through `JSONEventParser` (the parser ingest, the
/// collector and the outbox use: unknown keys refused, the same timestamp forms) and encoding
/// through ``Event/jsonLine``.
extension Event: Codable {
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        var bytes: [UInt8] = []
        JSONWriter.appendValue(value, to: &bytes)
        do {
            self = try Event.decode(jsonBytes: bytes)
        } catch let error as EventValidationError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var bytes: [UInt8] = []
        appendJSONLine(to: &bytes)
        let value = try bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            return try cursor.value()
        }
        try value.encode(to: encoder)
    }
}
