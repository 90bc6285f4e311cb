/// A spotlight on one UI element that points at one feature.
public struct Highlight: Sendable, Hashable {
    /// The UI element's id; also the `name` of `highlight_shown` / `highlight_dismissed` events.
    public var id: String
    /// The feature it explains; the `name` of the `feature_used` events that count as discovery.
    public var feature: String
    /// Optional text of the bottom sheet, for people reading the definition.
    public var title: String?

    /// Creates a highlight.
    public init(_ id: String, feature: String, title: String? = nil) {
        self.id = id
        self.feature = feature
        self.title = title
    }
}

extension Highlight: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, feature, title
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(String.self, forKey: .id),
            feature: try container.decode(String.self, forKey: .feature),
            title: try container.decodeIfPresent(String.self, forKey: .title))
        // After the known keys, so a missing required key is reported as such.
        try decoder.rejectUnknownKeys(CodingKeys.allCases.map(\.rawValue))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(feature, forKey: .feature)
        try container.encodeIfPresent(title, forKey: .title)
    }
}
