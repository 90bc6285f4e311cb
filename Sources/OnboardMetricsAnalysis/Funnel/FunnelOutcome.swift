/// What merging a person's replayed sessions reads to decide where the person ended
/// (``FunnelUnitState/merge(_:)``: status, then start, then last step), kept instead of the whole
/// state by reports that hold every onboarding of every person until the read ends (paths after
/// a drop, retention): about 30 bytes against 500.
struct FunnelOutcome: Sendable {
    var status: FunnelUnitState.Status
    var start: Int64
    var lastStep: Int?

    init(status: FunnelUnitState.Status, start: Int64, lastStep: Int?) {
        self.status = status
        self.start = start
        self.lastStep = lastStep
    }

    init(_ state: FunnelUnitState) {
        status = state.status
        start = state.start
        lastStep = state.lastStep
    }

    /// A state of no steps with these fields, to merge with others as the funnel merges states:
    /// its status and last step are the merged person's.
    var state: FunnelUnitState {
        var state = FunnelUnitState(stepCount: 0)
        state.status = status
        state.start = start
        state.lastStep = lastStep
        return state
    }
}
