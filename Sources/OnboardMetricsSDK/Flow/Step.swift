/// One step of a flow.
///
/// JSON: `{"id": "health", "when": "healthDataAvailable", "skippable": true, "highlights": [...],
/// "jumps": ["consent"], "handOff": "account"}`; every key but `id` may be left out.
public struct Step: Sendable, Hashable {
    /// The step's id, unique within its flow; the `step_id` of its events.
    public var id: String
    /// The step is on a session's path only when this holds for the session context.
    public var when: Condition?
    /// Whether the user may skip it.
    public var skippable: Bool
    /// Spotlights shown on this step.
    public var highlights: [Highlight]
    /// Steps this step may jump to (declared jumps); replay accepts a view of one of them as legal.
    public var jumps: [String]
    /// The id of a sub-flow that completing this step hands off to; the parent flow continues
    /// after it when the sub-flow completes.
    public var handOff: String?

    /// Creates a step.
    public init(
        _ id: String, when: Condition? = nil, skippable: Bool = false, highlights: [Highlight] = [],
        jumps: [String] = [], handOff: String? = nil
    ) {
        self.id = id
        self.when = when
        self.skippable = skippable
        self.highlights = highlights
        self.jumps = jumps
        self.handOff = handOff
    }

    /// Whether the step is on the path of a session with `context`.
    public func applies(to context: [String: JSONValue]) -> Bool {
        when?.evaluate(context) ?? true
    }
}

extension Step: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, when, skippable, highlights, jumps, handOff
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        when = try container.decodeIfPresent(Condition.self, forKey: .when)
        skippable = try container.decodeIfPresent(Bool.self, forKey: .skippable) ?? false
        highlights = try container.decodeIfPresent([Highlight].self, forKey: .highlights) ?? []
        jumps = try container.decodeIfPresent([String].self, forKey: .jumps) ?? []
        handOff = try container.decodeIfPresent(String.self, forKey: .handOff)
        // After the known keys, so a missing required key is reported as such.
        try decoder.rejectUnknownKeys(CodingKeys.allCases.map(\.rawValue))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(when, forKey: .when)
        if skippable { try container.encode(skippable, forKey: .skippable) }
        if !highlights.isEmpty { try container.encode(highlights, forKey: .highlights) }
        if !jumps.isEmpty { try container.encode(jumps, forKey: .jumps) }
        try container.encodeIfPresent(handOff, forKey: .handOff)
    }
}
