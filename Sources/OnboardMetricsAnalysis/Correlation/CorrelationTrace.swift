import OnboardMetricsReader
import OnboardMetricsSDK

/// What the correlation report keeps of one session (or, merged, one user): the funnel replay's
/// state, when the unit succeeded, the candidate events it recorded with the first time of each,
/// and its context values; names as their numbers in the aggregate's ``StringNumbers``.
struct CorrelationTrace: Sendable {
    /// A candidate event and the first time the unit recorded it.
    struct Seen: Sendable, Equatable {
        var name: UInt32
        var time: Int64
    }

    var state: FunnelUnitState
    /// When the unit first succeeded (completed the flow, or moved past the step); microseconds.
    var successTime: Int64?
    /// Candidate events before the success (all within the window when none), first time of
    /// each; sorted by name, each once.
    var seen: [Seen] = []
    /// The context's `key=value` labels, sorted, each once.
    var context: [UInt32] = []

    /// Replays `session` and collects its candidates, numbering their names in `names`.
    /// - Parameter stepIndex: the step the report is about; `nil` for the whole flow.
    init(_ session: RecordedSession, replay: FunnelReplay, stepIndex: Int?, names: inout StringNumbers) {
        state = replay.replay(session)
        context = session.context.map { key, value in names.number(of: key + "=" + JSONValue.label(value)) }
        context.sort()
        let end = session.startTime + replay.window
        for event in session.events {
            guard event.time <= end else { break }
            let own = event.flowID == nil || event.flowID == replay.flow.id
            if own, Self.succeeds(event, flow: replay.flow, stepIndex: stepIndex) {
                successTime = event.time
                break
            }
            guard let name = Self.candidateName(event, ownFlow: own) else { continue }
            let number = names.number(of: name)
            // Events come in time order: the first of each name is its time.
            if !seen.contains(where: { $0.name == number }) { seen.append(Seen(name: number, time: event.time)) }
        }
        seen.sort { $0.name < $1.name }
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
    func events(success: Bool) -> [UInt32] {
        guard success, let successTime else { return seen.map(\.name) }
        return seen.compactMap { $0.time <= successTime ? $0.name : nil }
    }

    /// Merges another session (or merged sessions) of the same user: the funnel state merges as
    /// the funnel's, the success is the earliest, each event keeps its earliest time, the context
    /// values are the union. Commutative and associative.
    mutating func merge(_ other: CorrelationTrace) {
        state.merge(other.state)
        if let time = other.successTime { successTime = min(successTime ?? time, time) }
        var merged: [Seen] = []
        merged.reserveCapacity(seen.count + other.seen.count)
        var mine = seen.startIndex
        var theirs = other.seen.startIndex
        while mine < seen.endIndex || theirs < other.seen.endIndex {
            if theirs == other.seen.endIndex || (mine < seen.endIndex && seen[mine].name < other.seen[theirs].name) {
                merged.append(seen[mine])
                mine += 1
            } else if mine == seen.endIndex || other.seen[theirs].name < seen[mine].name {
                merged.append(other.seen[theirs])
                theirs += 1
            } else {
                merged.append(Seen(name: seen[mine].name, time: min(seen[mine].time, other.seen[theirs].time)))
                mine += 1
                theirs += 1
            }
        }
        seen = merged
        context = Array(Set(context).union(other.context)).sorted()
    }

    /// This trace with its names renumbered (`renumbered[old]` is the new number), sorted again.
    func renumbered(_ renumbered: [UInt32]) -> CorrelationTrace {
        var copy = self
        copy.seen = seen.map { Seen(name: renumbered[Int($0.name)], time: $0.time) }.sorted { $0.name < $1.name }
        copy.context = context.map { renumbered[Int($0)] }.sorted()
        return copy
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
