import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// An event's class is the set of steps it matches, so a session file's read builds no events for
/// an ad-hoc funnel: each distinct kind, step, name and properties is matched once per thread (the flow is not
/// looked at).
extension AdHocFunnelAggregator: ClassifyingSessionConsumer {
    package var readsClasses: Bool { true }

    package func eventClass(
        kind: EventKind, flowID: String?, stepID: String?, name: String?, properties: [String: JSONValue]
    ) -> UInt64 {
        funnel.matcher.mask(kind: kind, stepID: stepID, name: name, properties: properties)
    }

    package var readsUsers: Bool { funnel.unit == .user }

    /// The user is there whenever ``readsUsers`` says (per user).
    package mutating func add(classified session: ClassifiedSession) {
        compact.removeAll(keepingCapacity: true)
        for event in session.events where funnel.keeps(mask: event.eventClass) {
            compact.append(AdHocEvent(time: event.time, mask: event.eventClass, seq: Int(event.seq)))
        }
        switch funnel.unit {
        case .session: count(funnel.reach(&compact, buffers: &chains))
        case .user: hold(compact, of: session.userID ?? "")
        }
    }
}
