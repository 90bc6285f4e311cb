import Foundation
import OnboardMetricsSDK

extension RecordedSession {
    /// Whether `other` holds the same values byte for byte, where `==` compares strings by
    /// canonical equivalence ("é" in one scalar equals "e" and a combining accent) and numbers by
    /// value (0 equals -0), though reports write their bytes. ``SessionCache`` replaces a kept
    /// session by another grouping's only when they are identical: two groupings read a trace in
    /// different snapshots, and an equal but rewritten session would have stayed stale in both.
    func isIdentical(to other: RecordedSession) -> Bool {
        guard sessionID == other.sessionID, flowVersion == other.flowVersion, events.count == other.events.count,
            ByteIdentity.same(userID, other.userID), ByteIdentity.same(flowID, other.flowID),
            ByteIdentity.same(context, other.context)
        else { return false }
        return events.indices.allSatisfy { events[$0].isIdentical(to: other.events[$0]) }
    }
}

extension RecordedEvent {
    /// Whether `other` holds the same values byte for byte (see ``RecordedSession/isIdentical(to:)``).
    func isIdentical(to other: RecordedEvent) -> Bool {
        kind == other.kind && time == other.time && seq == other.seq && flowVersion == other.flowVersion
            && ByteIdentity.same(flowID, other.flowID) && ByteIdentity.same(stepID, other.stepID)
            && ByteIdentity.same(name, other.name) && ByteIdentity.same(properties, other.properties)
    }
}
