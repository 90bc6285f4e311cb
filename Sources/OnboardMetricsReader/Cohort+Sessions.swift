import OnboardMetricsStore

extension Cohort {
    /// Whether a session belongs: its id is a member (unit session), or its user is (unit user).
    public func admits(_ session: RecordedSession) -> Bool {
        switch unit {
        case .session: members.contains(session.sessionID.uuidString.lowercased())
        case .user: members.contains(session.userID)
        }
    }
}
