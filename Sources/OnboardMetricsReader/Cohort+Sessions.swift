import Foundation
import OnboardMetricsStore

extension Cohort {
    /// Whether a session belongs: its id is a member (unit session), or its user is (unit user).
    public func admits(_ session: RecordedSession) -> Bool {
        admits(sessionID: session.sessionID, userID: session.userID)
    }

    /// ``admits(_:)`` for a session of this id and user.
    func admits(sessionID: UUID, userID: String) -> Bool {
        switch unit {
        case .session: members.contains(sessionID.uuidString.lowercased())
        case .user: members.contains(userID)
        }
    }
}
