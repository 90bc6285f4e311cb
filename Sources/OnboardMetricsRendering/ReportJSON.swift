import Foundation

/// Stable JSON for reports: snake_case keys, sorted, ISO 8601 dates.
public enum ReportJSON {
    /// Encodes a report.
    /// - Throws: `EncodingError` when a value cannot be encoded.
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
