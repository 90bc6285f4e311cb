import OnboardMetricsStatistics
import Testing

@testable import OnboardMetricsAnalysis

@Suite struct FunnelOutcomeTests {
    /// Paths after a drop and retention keep an outcome per onboarding instead of the state, and
    /// merge a person's outcomes: the status and last step must be what merging the whole states
    /// gives, whatever the order.
    @Test func mergedOutcomesEndWhereMergedStatesEnd() {
        var random = SplitMix64(seed: 3)
        for _ in 0..<2_000 {
            let states = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                var state = PackedUnitStoreTests.randomState(steps: 5, using: &random)
                // As replays make them: no origins yet; starts often equal, to test the ties.
                state.fromStartOrigins = nil
                state.onStepOrigins = nil
                state.lastStart = nil
                state.start = Int64.random(in: 0...2, using: &random)
                return state
            }
            let order = states.shuffled(using: &random)
            var whole = order[0]
            var outcome = FunnelOutcome(order[0]).state
            for state in order.dropFirst() {
                whole.merge(state)
                outcome.merge(FunnelOutcome(state).state)
            }
            #expect(outcome.status == whole.status)
            #expect(outcome.lastStep == whole.lastStep)
        }
    }
}
