import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Hand-built sessions; the expected counts and odds ratios are worked out in the comments from
/// PostHog's formula ((s+1)(F−f+1)) / ((S−s+1)(f+1)).
@Suite struct CorrelationAggregatorTests {
    /// welcome → consent (skippable) → done
    static let flow = FlowDefinition(
        id: "study", version: 1, steps: [Step("welcome"), Step("consent", skippable: true), Step("done")])

    static let t0: Int64 = 1_790_000_000_000_000
    static let reportEnd = t0 + 30 * 86_400 * 1_000_000

    /// A session from (kind, step or name, seconds after start); session_started comes first.
    static func session(
        _ number: Int, user: String? = nil, platform: String, start: Int64 = t0,
        _ moves: [(EventKind, String?, Double)]
    ) -> RecordedSession {
        let context: [String: JSONValue] = ["platform": .string(platform)]
        var events = [
            RecordedEvent(
                kind: .sessionStarted, flowID: "study", flowVersion: 1, time: start, seq: 0,
                properties: ["context": .object(context)])
        ]
        for (index, move) in moves.enumerated() {
            let stepEvent = move.0.isStepEvent || move.0 == .flowCompleted
            events.append(
                RecordedEvent(
                    kind: move.0, flowID: stepEvent ? "study" : nil, flowVersion: 1,
                    stepID: stepEvent ? move.1 : nil, name: stepEvent ? nil : move.1,
                    time: start + Int64(move.2 * 1_000_000), seq: index + 1))
        }
        let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
        return RecordedSession(
            sessionID: id, userID: user ?? "user-\(number)", flowID: "study", flowVersion: 1, context: context,
            events: events)
    }

    static let completion: [(EventKind, String?, Double)] = [
        (.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3),
        (.stepSkipped, "consent", 4), (.stepViewed, "done", 5), (.stepCompleted, "done", 6), (.flowCompleted, nil, 7),
    ]

    /// S = 4 successes (1–4), F = 3 failures (5–7), one unit in progress (8).
    static var sessions: [RecordedSession] {
        [
            session(1, platform: "ios", [(.featureUsed, "share", 0.5)] + completion),
            session(2, platform: "ios", [(.featureUsed, "share", 1.5)] + completion),
            // share after the completion: not before the conversion, so not counted.
            session(3, platform: "ios", completion + [(.featureUsed, "share", 9)]),
            session(4, platform: "android", completion),
            session(5, platform: "ios", [(.stepViewed, "welcome", 1), (.featureUsed, "share", 2)]),
            session(6, platform: "android", [(.stepViewed, "welcome", 1), (.custom, "help", 2)]),
            session(7, platform: "android", [(.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2)]),
            session(
                8, platform: "ios", start: reportEnd - 300_000_000,
                [(.stepViewed, "welcome", 1), (.featureUsed, "share", 2)]),
        ]
    }

    static var options: CorrelationOptions {
        var options = CorrelationOptions()
        options.funnel.reportEnd = Date(timeIntervalSince1970: Double(reportEnd) / 1_000_000)
        options.top = 0
        return options
    }

    static func row(_ group: CorrelationReport.Group, _ name: String) throws -> CorrelationReport.Row {
        try #require((group.positive + group.negative).first { $0.name == name })
    }

    static func postHog(s: Int, f: Int, S: Int, F: Int) -> Double {
        Double((s + 1) * (F - f + 1)) / Double((S - s + 1) * (f + 1))
    }

    @Test func countsAndOddsRatiosByTheFormula() throws {
        let report = try CorrelationAggregator(flow: Self.flow, options: Self.options, now: Date())
            .report(of: Self.sessions)
        let group = try #require(report.groups.first)
        #expect(group.successes == 4)
        #expect(group.failures == 3)
        #expect(group.inProgress == 1)
        // share: sessions 1, 2 of the successes (3's came after completing), 5 of the failures.
        let share = try Self.row(group, "feature_used:share")
        #expect(share.successes == 2 && share.failures == 1)
        #expect(abs(share.oddsRatio - 1.5) < 1e-12)  // (3·3)/(3·2)
        #expect(abs(share.oddsRatio - Self.postHog(s: 2, f: 1, S: 4, F: 3)) < 1e-12)
        let ios = try Self.row(group, "platform=ios")
        #expect(ios.kind == .property && ios.successes == 3 && ios.failures == 1)
        #expect(abs(ios.oddsRatio - 3) < 1e-12)  // (4·3)/(2·2)
        let android = try Self.row(group, "platform=android")
        #expect(android.successes == 1 && android.failures == 2)
        #expect(abs(android.oddsRatio - 1.0 / 3) < 1e-12)  // (2·2)/(4·3)
        let help = try Self.row(group, "custom:help")
        #expect(help.successes == 0 && help.failures == 1, "\(help)")
        #expect(abs(help.oddsRatio - 0.3) < 1e-12)  // (1·3)/(5·2)
        // The flow's own step events are not candidates.
        let names = (group.positive + group.negative).map(\.name)
        #expect(!names.contains { $0.hasPrefix("step_") || $0.hasPrefix("flow_") || $0.hasPrefix("session_") })
        #expect(group.candidatesTested == 4)
        // The p-value is Fisher's of [[s, S−s], [f, F−f]], and adjusting never lowers it.
        #expect(share.pValue == FisherExactTest.twoSidedPValue(2, 2, 1, 2))
        for row in group.positive + group.negative { #expect(row.adjustedPValue >= row.pValue) }
        // Sorted both ways: the largest odds ratio first, the smallest first.
        #expect(group.positive.map(\.name) == ["platform=ios", "feature_used:share"])
        #expect(group.negative.map(\.name) == ["custom:help", "platform=android"])  // 0.3, 1/3
        // Seven units: too few, and the warning says so.
        #expect(group.warnings.contains { $0.hasPrefix("too few units") })
    }

    @Test func stepModeSplitsByMovingPastTheStep() throws {
        var options = Self.options
        options.step = "consent"
        let sessions = [
            // Viewed consent and skipped it, then dropped: moved past the step, a success.
            Self.session(
                1, platform: "ios",
                [
                    (.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3),
                    (.featureUsed, "share", 3.5), (.stepSkipped, "consent", 4), (.custom, "late", 5),
                ]),
            // Viewed consent and stopped there: a failure.
            Self.session(
                2, platform: "ios",
                [
                    (.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3),
                    (.custom, "late", 5),
                ]),
            // Never reached consent: left out.
            Self.session(3, platform: "android", [(.stepViewed, "welcome", 1)]),
        ]
        let report = try CorrelationAggregator(flow: Self.flow, options: options, now: Date()).report(of: sessions)
        let group = try #require(report.groups.first)
        #expect(group.successes == 1 && group.failures == 1 && group.notEntered == 1)
        // "late" came after session 1 moved past consent: only the failure has it.
        let late = try Self.row(group, "custom:late")
        #expect(late.successes == 0 && late.failures == 1)
        let share = try Self.row(group, "feature_used:share")
        #expect(share.successes == 1 && share.failures == 0)
    }

    @Test func unknownStepIsAnError() {
        var options = Self.options
        options.step = "nope"
        #expect(throws: CorrelationError.self) {
            try CorrelationAggregator(flow: Self.flow, options: options, now: Date())
        }
    }

    @Test func perUserCountsEventsBeforeTheUsersSuccess() throws {
        var options = Self.options
        options.funnel.unit = .user
        let sessions = [
            // u1 drops once with "help", then completes: a success that had "help" before it.
            Self.session(1, user: "u1", platform: "ios", [(.stepViewed, "welcome", 1), (.custom, "help", 2)]),
            Self.session(2, user: "u1", platform: "ios", start: Self.t0 + 3_600_000_000, Self.completion),
            Self.session(3, user: "u2", platform: "ios", [(.stepViewed, "welcome", 1), (.custom, "help", 2)]),
            Self.session(4, user: "u3", platform: "ios", [(.stepViewed, "welcome", 1)]),
        ]
        let report = try CorrelationAggregator(flow: Self.flow, options: options, now: Date()).report(of: sessions)
        let group = try #require(report.groups.first)
        #expect(group.successes == 1 && group.failures == 2)
        let help = try Self.row(group, "custom:help")
        #expect(help.successes == 1 && help.failures == 1)
        #expect(abs(help.oddsRatio - 2) < 1e-12)  // (2·2)/(1·2)
    }

    @Test(arguments: [FunnelOptions.Unit.session, .user])
    func mergedPartsEqualOneAggregate(unit: FunnelOptions.Unit) throws {
        var options = Self.options
        options.funnel.unit = unit
        options.funnel.breakdown = "platform"
        let make = { try CorrelationAggregator(flow: Self.flow, options: options, now: Date()) }
        // Sessions of one user on different parts, as on different shards.
        let sessions = Self.sessions.enumerated().map { index, session in
            var session = session
            session.userID = "u\(index % 3)"
            return session
        }
        let single = try make().report(of: sessions)
        for split in 1..<sessions.count {
            var first = try make()
            var second = try make()
            for session in sessions[..<split] { first.add(session) }
            for session in sessions[split...] { second.add(session) }
            second.merge(first)
            #expect(try second.report() == single)
        }
    }
}
