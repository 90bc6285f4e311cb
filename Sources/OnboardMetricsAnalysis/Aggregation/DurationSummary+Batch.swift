import Dispatch
import NIOConcurrencyHelpers

extension DurationSummary {
    /// One summary per sample, the same as `samples.map(DurationSummary.init)`, computed side by
    /// side when there is enough to share out: a report summarizes every step's durations after
    /// the replay has ended, and doing that on one core was a tenth of a warm dashboard report.
    /// Each summary depends only on its own sample, so the result does not depend on scheduling.
    static func summaries(_ samples: [DurationSamples]) -> [DurationSummary] {
        let total = samples.reduce(0) { $0 + $1.count }
        // Below this many durations a thread costs more than it saves.
        guard samples.count > 1, total >= 50_000 else { return samples.map(\.summary) }
        let results = NIOLockedValueBox([DurationSummary?](repeating: nil, count: samples.count))
        DispatchQueue.concurrentPerform(iterations: samples.count) { index in
            let summary = samples[index].summary
            results.withLockedValue { $0[index] = summary }
        }
        return results.withLockedValue { $0.map { $0 ?? DurationSummary([]) } }
    }
}
