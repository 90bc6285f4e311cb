import Foundation
import OnboardMetrics

@testable import OnboardMetricsSDK

/// Deterministic events for database tests: `sessions` sessions of `perSession` events each.
enum SampleEvents {
    static func make(
        sessions: Int, perSession: Int, seed: UInt64 = 1, start: Date = Date(timeIntervalSince1970: 1_790_000_000)
    )
        -> [Event]
    {
        var random = SeededRandom(seed: seed)
        var ids = UUIDv7Generator()
        var events: [Event] = []
        events.reserveCapacity(sessions * perSession)
        for session in 0..<sessions {
            let sessionID = UUIDv7Generator.randomV4(using: &random)
            for seq in 0..<perSession {
                let at = start.addingTimeInterval(Double(session) + Double(seq) * 0.25)
                let kind: EventKind = seq == 0 ? .sessionStarted : .stepViewed
                events.append(
                    Event(
                        eventID: ids.next(at: at, using: &random), sessionID: sessionID, userID: "user-\(session % 97)",
                        seq: seq, kind: kind, flowID: "health-study", flowVersion: 1,
                        stepID: kind == .stepViewed ? "step-\(seq)" : nil, occurredAt: at,
                        sentAt: at.addingTimeInterval(1),
                        properties: kind == .sessionStarted
                            ? ["context": .object(["platform": "ios"])] : ["n": .number(Double(seq))]))
            }
        }
        return events
    }
}

/// SplitMix64: a small seeded generator for test data.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
