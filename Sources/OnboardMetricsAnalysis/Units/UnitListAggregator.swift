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
            if (other.start, other.sessionID.uuidString) < (start, sessionID.uuidString) {
                start = other.start
                sessionID = other.sessionID
            }
            lastEvent = max(lastEvent, other.lastEvent)
            sessions += other.sessions
        }
    }

    let flow: FlowDefinition
    let options: UnitListOptions
    let replay: FunnelReplay
    let stepIndex: Int?
    let reportEnd: Date
    var selection: SessionSelection
    var listed: [Unit] = []
    var users: [String: Unit] = [:]

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
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        let unit = Unit(
            state: replay.replay(session), userID: session.userID, sessionID: session.sessionID,
            start: session.startTime, lastEvent: session.lastTime, sessions: 1)
        switch options.unit {
        case .session:
            if matches(unit.state) { listed.append(unit) }
        case .user:
            if var existing = users.removeValue(forKey: session.userID) {
                existing.merge(unit)
                users[session.userID] = existing
            } else {
                users[session.userID] = unit
            }
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
