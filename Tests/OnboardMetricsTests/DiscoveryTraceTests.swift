import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader

/// A person's sessions reach discovery in whatever order the reading threads close them: merging
/// their traces gives one answer in every order, the one their events would give read as one.
@Suite struct DiscoveryTraceTests {
    static func session(_ start: Int64, feature: String?) -> RecordedSession {
        RecordedSession(
            sessionID: UUID(), userID: "ann", flowID: "flow", flowVersion: 1, context: [:],
            events: [
                RecordedEvent(
                    kind: .highlightShown, flowID: "flow", name: "share-tip", time: start, seq: 1,
                    properties: feature.map { ["feature": .string($0)] } ?? [:])
            ])
    }

    /// The highlight shown three times: first naming no feature, then "export", then "share".
    /// The feature is the earliest one named, "export", whichever order the sessions merge in.
    @Test func theFeatureOfAHighlightIsTheEarliestNamedInAnyOrder() {
        let traces = [
            DiscoveryTrace(Self.session(1_000, feature: nil)), DiscoveryTrace(Self.session(2_000, feature: "export")),
            DiscoveryTrace(Self.session(3_000, feature: "share")),
        ]
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            var merged = traces[order[0]]
            merged.merge(traces[order[1]])
            merged.merge(traces[order[2]])
            #expect(merged.shown["share-tip"]?.feature == "export", "\(order)")
            #expect(merged.shown["share-tip"]?.time == 1_000, "\(order)")
            // And merged in pairs first (one thread's two sessions, then the other's).
            var pair = traces[order[1]]
            pair.merge(traces[order[2]])
            var first = traces[order[0]]
            first.merge(pair)
            #expect(first.shown["share-tip"]?.feature == "export", "\(order), pairs")
        }
        // Named at the same time by two sessions: the smaller name, in either order.
        var one = DiscoveryTrace(Self.session(5_000, feature: "zip"))
        one.merge(DiscoveryTrace(Self.session(5_000, feature: "archive")))
        var other = DiscoveryTrace(Self.session(5_000, feature: "archive"))
        other.merge(DiscoveryTrace(Self.session(5_000, feature: "zip")))
        #expect(one.shown["share-tip"]?.feature == "archive" && other.shown["share-tip"]?.feature == "archive")
    }
}
