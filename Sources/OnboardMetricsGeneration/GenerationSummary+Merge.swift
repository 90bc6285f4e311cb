extension GenerationSummary {
    /// Adds the counts of `other` (users are merged by the caller, who knows the identities).
    mutating func add(_ other: GenerationSummary) {
        sessions += other.sessions
        lines += other.lines
        events += other.events
        completedSessions += other.completedSessions
        inProgressSessions += other.inProgressSessions
        duplicates += other.duplicates
        lateEvents += other.lateEvents
        outOfOrderSessions += other.outOfOrderSessions
        skewedSessions += other.skewedSessions
        eventsByKind.merge(other.eventsByKind, uniquingKeysWith: +)
        variants.merge(other.variants, uniquingKeysWith: +)
    }
}
