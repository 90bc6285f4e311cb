import OnboardMetricsReader
import OnboardMetricsSDK

/// What the correlation report keeps of one session (or, merged, one user): the funnel replay's
/// state, when the unit succeeded, the candidate events it recorded with the first time of each,
/// and its context values.
struct CorrelationTrace: Sendable {
    var state: FunnelUnitState
    /// When the unit first succeeded (completed the flow, or moved past the step); microseconds.
    var successTime: Int64?
    /// Candidate events before the success (all within the window when none), first time of each.
    var seen: [String: Int64] = [:]
    var context: Set<String> = []

    /// Replays `session` and collects its candidates.
    /// - Parameter stepIndex: the step the report is about; `nil` for the whole flow.
    init(_ session: RecordedSession, replay: FunnelReplay, stepIndex: Int?) {
        state = replay.replay(session)
        for (key, value) in session.context { context.insert(key + "=" + JSONValue.label(value)) }
        let end = session.startTime + replay.window
        for event in session.events {
            guard event.time <= end else { break }
            let own = event.flowID == nil || event.flowID == replay.flow.id
            if own, Self.succeeds(event, flow: replay.flow, stepIndex: stepIndex) {
                successTime = event.time
                break
            }
            guard let name = Self.candidateName(event, ownFlow: own) else { continue }
            if seen[name] == nil { seen[name] = event.time }
        }
    }

    /// Whether the unit counts, and as what: `true` success, `false` failure, `nil` left out (in
    /// progress, or — for a step — never viewed it).
    func outcome(stepIndex: Int?) -> Bool? {
        guard let stepIndex else {
            switch state.status {
            case .completed: return true
            case .dropped: return false
            case .inProgress: return nil
            }
        }
        guard state.viewed.indices.contains(stepIndex), state.viewed[stepIndex] else { return nil }
        let movedPast =
            state.status == .completed || state.completed[stepIndex] || state.skipped[stepIndex]
            || state.viewed[(stepIndex + 1)...].contains(true)
        if movedPast { return true }
        return state.status == .dropped ? false : nil
    }

    /// The candidate events the unit counts with: those before its success when it succeeded.
    func events(success: Bool) -> [String] {
        guard success, let successTime else { return Array(seen.keys) }
        return seen.compactMap { $0.value <= successTime ? $0.key : nil }
    }

    /// Merges another session (or merged sessions) of the same user: the funnel state merges as
    /// the funnel's, the success is the earliest, each event keeps its earliest time, the context
    /// values are the union. Commutative and associative.
    mutating func merge(_ other: CorrelationTrace) {
        state.merge(other.state)
        if let time = other.successTime { successTime = min(successTime ?? time, time) }
        seen.merge(other.seen) { min($0, $1) }
        context.formUnion(other.context)
    }

    /// The moment a unit succeeds: the flow's completion; for a step, also its completion or skip,
    /// or a view of a later step.
    private static func succeeds(_ event: RecordedEvent, flow: FlowDefinition, stepIndex: Int?) -> Bool {
        if event.kind == .flowCompleted { return true }
        guard let stepIndex, let stepID = event.stepID, let index = flow.index(of: stepID) else { return false }
        switch event.kind {
        case .stepCompleted, .stepSkipped: return index == stepIndex
        case .stepViewed: return index > stepIndex
        default: return false
        }
    }

    /// `kind` or `kind:name`; `nil` for the flow's own lifecycle and step events.
    private static func candidateName(_ event: RecordedEvent, ownFlow: Bool) -> String? {
        switch event.kind {
        case .sessionStarted: return nil
        case .stepViewed, .stepCompleted, .stepSkipped, .stepBack, .flowCompleted, .flowAbandoned:
            if ownFlow { return nil }
            let step = event.stepID.map { "/" + $0 } ?? ""
            return event.kind.rawValue + ":" + (event.flowID ?? "") + step
        case .experimentExposure:
            let variant = event.properties["variant"].map { "=" + JSONValue.label($0) } ?? ""
            return event.kind.rawValue + ":" + (event.name ?? "") + variant
        default:
            return event.name.map { event.kind.rawValue + ":" + $0 } ?? event.kind.rawValue
        }
    }
}
