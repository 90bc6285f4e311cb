/// What a `FlowNavigator` transition implies: an event without identity or timestamps.
///
/// The recorder (or the generator) turns a draft into an `Event` by adding the event id, session,
/// user, sequence number and clock readings. Replay feeds drafts of recorded events back into a
/// navigator with `FlowNavigator.observe(_:)`.
public struct EventDraft: Hashable, Sendable {
    /// The kind of event.
    public var kind: EventKind
    /// The flow the event belongs to (absent for events outside any flow).
    public var flowID: String?
    /// The version of that flow.
    public var flowVersion: Int?
    /// The step, for step events and for events that happen while a step is shown.
    public var stepID: String?
    /// Custom event name, highlight id, feature id or experiment key, depending on `kind`.
    public var name: String?
    /// Further attributes, e.g. `reason` of a dismissed highlight, `variant` of an exposure.
    public var properties: [String: JSONValue]

    /// Creates a draft.
    public init(
        kind: EventKind, flowID: String? = nil, flowVersion: Int? = nil, stepID: String? = nil,
        name: String? = nil, properties: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.flowID = flowID
        self.flowVersion = flowVersion
        self.stepID = stepID
        self.name = name
        self.properties = properties
    }
}
