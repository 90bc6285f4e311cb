/// Any key of a JSON object, for listing the keys a decoder was given.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses keys outside `known`: a typo such as `"skipable"` would otherwise be ignored and
    /// the flow silently mean something else. The error's coding path ends at the unknown key.
    func rejectUnknownKeys(_ known: [String]) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !known.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription:
                        "\(FlowError.unknownKeyMarker)'\(key.stringValue)' (known keys: \(known.joined(separator: ", ")))"
                ))
        }
    }
}
