/// A spotlight on one UI element that points at one feature.
public struct Highlight: Codable, Sendable, Hashable {
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
