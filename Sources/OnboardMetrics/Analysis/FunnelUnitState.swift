/// What one session (or, merged, one user) did on each step of a flow: the compact result of
/// replaying it, which the aggregator counts.
struct FunnelUnitState: Sendable {
    enum Status: Sendable { case completed, dropped, inProgress }

    var status: Status = .dropped
    /// Start time, microseconds since 1970.
    var start: Int64 = 0
    /// Per step of the flow.
    var eligible: [Bool]
    var viewed: [Bool]
    var completed: [Bool]
    var skipped: [Bool]
    /// Seconds from the start to the first view, per step (NaN: not viewed).
    var secondsFromStart: [Double]
    /// Seconds from the view to the completion or skip, per step (NaN: not done).
    var secondsOnStep: [Double]
    /// The step a dropped or in-progress unit was last on; nil before the first view.
    var lastStep: Int?
    var breakdown: String?

    init(stepCount: Int) {
        eligible = Array(repeating: false, count: stepCount)
        viewed = eligible
        completed = eligible
        skipped = eligible
        secondsFromStart = Array(repeating: .nan, count: stepCount)
        secondsOnStep = secondsFromStart
    }

    /// Merges another session of the same user: a user reached what any session reached; times
    /// come from the earliest session that has them; completed beats in progress beats dropped,
    /// and a dropped user dropped where their latest session did.
    mutating func merge(_ other: FunnelUnitState) {
        let otherIsLater = other.start >= start
        for index in eligible.indices {
            eligible[index] = eligible[index] || other.eligible[index]
            viewed[index] = viewed[index] || other.viewed[index]
            completed[index] = completed[index] || other.completed[index]
            skipped[index] = (skipped[index] || other.skipped[index]) && !completed[index]
            if secondsFromStart[index].isNaN || (!other.secondsFromStart[index].isNaN && !otherIsLater) {
                if !other.secondsFromStart[index].isNaN { secondsFromStart[index] = other.secondsFromStart[index] }
            }
            if secondsOnStep[index].isNaN || (!other.secondsOnStep[index].isNaN && !otherIsLater) {
                if !other.secondsOnStep[index].isNaN { secondsOnStep[index] = other.secondsOnStep[index] }
            }
        }
        switch (status, other.status) {
        case (.completed, _): break
        case (_, .completed): status = .completed
        case (.inProgress, _): break
        case (_, .inProgress):
            status = .inProgress
            lastStep = other.lastStep
        default:
            if otherIsLater { lastStep = other.lastStep }
        }
        if !otherIsLater {
            start = other.start
            breakdown = other.breakdown
        }
    }
}
