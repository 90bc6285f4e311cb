import Foundation

/// A versioned onboarding flow: an id, a version and ordered steps.
///
/// Load one from JSON with `FlowDefinition.decode(from:)` (which validates it), or build one in
/// Swift with the result builder:
///
/// ```swift
/// let flow = FlowDefinition(id: "health-study", version: 1) {
///     Step("welcome")
///     Step("health-data", when: "healthDataAvailable", skippable: true)
/// }
/// try flow.validate()
/// ```
public struct FlowDefinition: Sendable, Hashable {
    /// The flow's id; the `flow_id` of its events.
    public var id: String
    /// The flow's version; the `flow_version` of its events.
    public var version: Int
    /// A title for people.
    public var title: String?
    /// The steps in declared order.
    public var steps: [Step]

    /// Creates a flow from a list of steps.
    public init(id: String, version: Int, title: String? = nil, steps: [Step]) {
        self.id = id
        self.version = version
        self.title = title
        self.steps = steps
    }

    /// Creates a flow with the step builder; equal to the same flow decoded from JSON.
    public init(id: String, version: Int, title: String? = nil, @StepBuilder steps: () -> [Step]) {
        self.init(id: id, version: version, title: title, steps: steps())
    }

    /// Decodes and validates a flow from JSON; errors name the JSON path.
    public static func decode(from data: Data) throws(FlowError) -> FlowDefinition {
        let flow: FlowDefinition
        do {
            flow = try JSONDecoder().decode(FlowDefinition.self, from: data)
        } catch let error as DecodingError {
            throw FlowError.from(error)
        } catch {
            throw FlowError(.invalidJSON, "\(error)", path: "$")
        }
        try flow.validate()
        return flow
    }

    /// The index of the step with `id`.
    public func index(of stepID: String) -> Int? {
        steps.firstIndex { $0.id == stepID }
    }

    /// The step with `id`.
    public func step(_ stepID: String) -> Step? {
        steps.first { $0.id == stepID }
    }

    /// The steps on the path of a session with `context`: those whose condition holds, in order.
    /// These are the steps a session is eligible for (the funnel's denominators).
    public func eligibleSteps(for context: [String: JSONValue]) -> [Step] {
        steps.filter { $0.applies(to: context) }
    }

    /// The highlight with `id`, on whichever step declares it.
    public func highlight(_ highlightID: String) -> Highlight? {
        for step in steps {
            if let highlight = step.highlights.first(where: { $0.id == highlightID }) { return highlight }
        }
        return nil
    }

    /// The JSON form, pretty-printed with sorted keys (the format of examples/flows/).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension FlowDefinition: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, version, title, steps
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            version: try container.decode(Int.self, forKey: .version),
            title: try container.decodeIfPresent(String.self, forKey: .title),
            steps: try container.decode([Step].self, forKey: .steps))
        // After the known keys, so a missing required key is reported as such.
        try decoder.rejectUnknownKeys(CodingKeys.allCases.map(\.rawValue))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(steps, forKey: .steps)
    }
}
