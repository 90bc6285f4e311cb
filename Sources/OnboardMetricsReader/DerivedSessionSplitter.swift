import Foundation
import OnboardMetricsSDK

/// Cuts users' session streams (``DerivedSessionID``) into sessions while events are read in
/// event-id order — the client's time order: an event more than the inactivity gap after the
/// stream's previous one starts a new session. Holds one entry per stream seen within the gap.
struct DerivedSessionSplitter {
    private struct Run {
        var sessionID: UUID
        var last: Int64
        var count: Int
    }

    private let inactivity: Int64
    private var runs: [UUID: Run] = [:]
    private var pruneAt = 4_096

    init(inactivity: Int64 = DerivedSessionID.inactivity) {
        self.inactivity = inactivity
    }

    /// The session of an event of `stream` at `time` (microseconds, non-decreasing over calls),
    /// and the event's position in it from 1.
    mutating func session(stream: UUID, time: Int64) -> (UUID, Int) {
        if runs.count >= pruneAt {
            runs = runs.filter { time - $0.value.last <= inactivity }
            pruneAt = max(4_096, runs.count * 2)
        }
        if var run = runs[stream], time - run.last <= inactivity {
            run.last = max(run.last, time)
            run.count += 1
            runs[stream] = run
            return (run.sessionID, run.count)
        }
        let run = Run(sessionID: DerivedSessionID.session(stream: stream, start: time), last: time, count: 1)
        runs[stream] = run
        return (run.sessionID, 1)
    }
}
