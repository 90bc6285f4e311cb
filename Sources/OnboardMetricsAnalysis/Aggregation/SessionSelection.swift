import Foundation
import OnboardMetricsReader

/// Which recorded sessions a flow report counts: those of its flow that started in the time
/// range. Sessions of other flows are counted apart, so reports can say how many they passed over.
struct SessionSelection: Sendable {
    let flowID: String
    let since: Int64?
    let until: Int64?
    var otherFlowSessions = 0

    init(flowID: String, since: Date?, until: Date?) {
        self.flowID = flowID
        self.since = since.map(RecordedEvent.microseconds)
        self.until = until.map(RecordedEvent.microseconds)
    }

    /// Whether `session` is counted; notes a session of another flow.
    mutating func accepts(_ session: RecordedSession) -> Bool {
        accepts(flowID: session.flowID, startTime: session.startTime)
    }

    /// ``accepts(_:)`` for a session of this flow that started at `startTime`.
    mutating func accepts(flowID: String?, startTime: Int64) -> Bool {
        guard flowID == self.flowID else {
            otherFlowSessions += 1
            return false
        }
        if let since, startTime < since { return false }
        if let until, startTime >= until { return false }
        return true
    }
}

extension SessionSelection {
    /// Adds what another selection passed over.
    mutating func merge(_ other: SessionSelection) {
        otherFlowSessions += other.otherFlowSessions
    }
}
