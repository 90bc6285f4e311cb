import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// A flow funnel needs of each event its time and what it does to the flow's steps (its class:
/// ``FunnelReplay/eventClass(kind:flowID:stepID:)``), so a session file's read builds no events
/// for it, unless the breakdown is by experiment variant (which reads the exposures).
extension FunnelAggregator: ClassifyingSessionConsumer {
    package var readsClasses: Bool { !replay.breaksDownByEvents }

    package var readsUsers: Bool { options.unit == .user }

    package func eventClass(
        kind: EventKind, flowID: String?, stepID: String?, name: String?, properties: [String: JSONValue]
    ) -> UInt64 {
        replay.eventClass(kind: kind, flowID: flowID, stepID: stepID)
    }

    /// Only while ``readsClasses`` (a read hands a variant breakdown decoded sessions); the user
    /// is there whenever ``readsUsers`` says (per user).
    package mutating func add(classified session: ClassifiedSession) {
        guard selection.accepts(flowID: session.flowID, startTime: session.startTime) else { return }
        replay.replay(classified: session, into: &scratch, lastViewTime: &viewTimes, memo: &memo)
        switch options.unit {
        case .session: Self.count(scratch, steps: flow.steps.count, groups: &groups)
        case .user: users.merge(scratch, user: session.userID ?? "", scratch: &merged)
        }
    }
}
