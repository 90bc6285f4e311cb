import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// Replays each session of the flow and keeps the units whose status at the step matches; per
/// user, every person's merged state until the read ends.
public struct UnitListAggregator: Sendable {
    /// One unit's replayed state and who it is.
    struct Unit: Sendable {
        var state: FunnelUnitState
        var userID: String
        var sessionID: UUID
        var start: Int64
        var lastEvent: Int64
        var sessions: Int

        /// Merges another session of the same person: the state as the funnel merges it, the first
        /// session's id (earliest start, then smaller id), the last event of all.
        mutating func merge(_ other: Self) {
            state.merge(other.state)
            if other.sessionID.isBefore(sessionID, start: other.start, otherStart: start) {
                start = other.start
                sessionID = other.sessionID
            }
            lastEvent = max(lastEvent, other.lastEvent)
            sessions += other.sessions
        }

        /// Its row's values, for the person `userID`.
        func listed(as userID: String) -> Listed {
            Listed(
                userID: userID, sessionID: sessionID, start: start, lastEvent: lastEvent, sessions: sessions,
                status: state.status)
        }
    }

    let flow: FlowDefinition
    let options: UnitListOptions
    let replay: FunnelReplay
    let stepIndex: Int?
    /// A unit listed, as its row shows it (per session kept as each comes, without the state).
    struct Listed: Sendable {
        var userID: String
        var sessionID: UUID
        var start: Int64
        var lastEvent: Int64
        var sessions: Int
        var status: FunnelUnitState.Status
    }

    let reportEnd: Date
    var selection: SessionSelection
    var listed: [Listed] = []
    /// Per user, every person's unit to the end, packed (the store's key is the user id).
    var users: PackedUnitStore<Unit>
    /// Reused to unpack a person's unit.
    private var scratch: Unit

    /// An empty list. - Throws: ``UnitListError`` for a step not in the flow, or `skipped` without a step.
    public init(flow: FlowDefinition, options: UnitListOptions, now: Date) throws {
        self.flow = flow
        self.options = options
        if let step = options.step {
            guard let index = flow.index(of: step) else {
                throw UnitListError(flow.unknownStepMessage(step))
            }
            stepIndex = index
        } else {
            guard options.status != .skipped else { throw UnitListError("--status skipped needs --step") }
            stepIndex = nil
        }
        var funnel = FunnelOptions()
        funnel.window = options.window
        funnel.inactivity = options.inactivity
        reportEnd = options.until ?? now
        replay = FunnelReplay(flow: flow, options: funnel, reportEnd: RecordedEvent.microseconds(reportEnd))
        selection = SessionSelection(flowID: flow.id, since: options.since, until: options.until)
        users = PackedUnitStore(stepCount: flow.steps.count)
        scratch = Unit(stepCount: flow.steps.count)
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        let unit = Unit(
            state: replay.replay(session), userID: session.userID, sessionID: session.sessionID,
            start: session.startTime, lastEvent: session.lastTime, sessions: 1)
        switch options.unit {
        case .session:
            if matches(unit.state) { listed.append(unit.listed(as: unit.userID)) }
        case .user: users.merge(unit, user: session.userID, scratch: &scratch)
        }
    }

    /// Whether a unit's state has the status asked for.
    func matches(_ state: FunnelUnitState) -> Bool {
        guard let index = stepIndex else {
            switch options.status {
            case .viewed: return true
            case .completed: return state.status == .completed
            case .skipped: return false
            case .dropped: return state.status == .dropped
            case .inProgress: return state.status == .inProgress
            }
        }
        switch options.status {
        case .viewed: return state.viewed[index]
        case .completed: return state.completed[index]
        case .skipped: return state.skipped[index]
        case .dropped: return state.status == .dropped && state.lastStep == index
        case .inProgress: return state.status == .inProgress && state.lastStep == index
        }
    }
}

/// A unit list that cannot be made as asked.
public struct UnitListError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
