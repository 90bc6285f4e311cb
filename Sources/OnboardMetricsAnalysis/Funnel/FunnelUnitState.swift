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
    /// Microseconds from the start to the first view, per step (``none``: not viewed). Kept as
    /// the microseconds the events' times give, not as seconds: a report keeps every duration
    /// (``DurationSamples``), and whole microseconds fit in half the bytes.
    var microsecondsFromStart: [Int64]
    /// Microseconds from the view to the completion or skip, per step (``none``: not done).
    var microsecondsOnStep: [Int64]
    /// No duration: a difference of two times is never this.
    static let none = Int64.min
    /// The step a dropped or in-progress unit was last on; nil before the first view.
    var lastStep: Int?
    var breakdown: String?

    init(stepCount: Int) {
        eligible = Array(repeating: false, count: stepCount)
        viewed = eligible
        completed = eligible
        skipped = eligible
        microsecondsFromStart = Array(repeating: Self.none, count: stepCount)
        microsecondsOnStep = microsecondsFromStart
    }

    /// Back to what `init(stepCount:)` makes, keeping the arrays' storage.
    mutating func reset() {
        status = .dropped
        start = 0
        for index in eligible.indices {
            eligible[index] = false
            viewed[index] = false
            completed[index] = false
            skipped[index] = false
            microsecondsFromStart[index] = Self.none
            microsecondsOnStep[index] = Self.none
        }
        lastStep = nil
        breakdown = nil
        fromStartOrigins = nil
        onStepOrigins = nil
        lastStart = nil
    }

    /// Start of the session each `microsecondsFromStart` value came from (`nil`: all from `start`).
    var fromStartOrigins: [Int64]?
    /// Start of the session each `microsecondsOnStep` value came from (`nil`: all from `start`).
    var onStepOrigins: [Int64]?
    /// Start of the session `status` and `lastStep` came from (`nil`: `start`).
    var lastStart: Int64?

    /// Merges another session (or merged sessions) of the same user: a user reached what any
    /// session reached; times come from the earliest session that has them; completed beats in
    /// progress beats dropped, and a dropped (in-progress) user is where their latest dropped
    /// (in-progress) session was. Commutative and associative — ties broken by value — so a user's
    /// sessions may be merged in any order, on any shard, and give the same state.
    mutating func merge(_ other: FunnelUnitState) {
        let count = eligible.count
        var fromOrigins = fromStartOrigins ?? Array(repeating: start, count: count)
        var onOrigins = onStepOrigins ?? Array(repeating: start, count: count)
        let otherFromOrigins = other.fromStartOrigins ?? Array(repeating: other.start, count: count)
        let otherOnOrigins = other.onStepOrigins ?? Array(repeating: other.start, count: count)
        for index in eligible.indices {
            eligible[index] = eligible[index] || other.eligible[index]
            viewed[index] = viewed[index] || other.viewed[index]
            completed[index] = completed[index] || other.completed[index]
            skipped[index] = (skipped[index] || other.skipped[index]) && !completed[index]
            Self.earliest(
                &microsecondsFromStart[index], &fromOrigins[index], other.microsecondsFromStart[index],
                otherFromOrigins[index])
            Self.earliest(
                &microsecondsOnStep[index], &onOrigins[index], other.microsecondsOnStep[index], otherOnOrigins[index])
        }
        fromStartOrigins = fromOrigins
        onStepOrigins = onOrigins
        let mine = (Self.rank(status), lastStart ?? start, lastStep ?? -1)
        let theirs = (Self.rank(other.status), other.lastStart ?? other.start, other.lastStep ?? -1)
        if theirs > mine {
            status = other.status
            lastStep = other.lastStep
            lastStart = other.lastStart ?? other.start
        } else {
            lastStart = lastStart ?? start
        }
        if (other.start, other.breakdown ?? "") < (start, breakdown ?? "") {
            start = other.start
            breakdown = other.breakdown
        }
    }

    private static func rank(_ status: Status) -> Int {
        switch status {
        case .dropped: 0
        case .inProgress: 1
        case .completed: 2
        }
    }

    /// Keeps the value of the earlier session (``none``: none); on a tie, the smaller value.
    private static func earliest(_ value: inout Int64, _ origin: inout Int64, _ other: Int64, _ otherOrigin: Int64) {
        guard other != none else { return }
        if value == none || (otherOrigin, other) < (origin, value) {
            value = other
            origin = otherOrigin
        }
    }
}
