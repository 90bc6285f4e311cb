import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Paths after a drop and between two steps, on hand-built people whose paths are worked out in
/// the comments.
@Suite struct PathReportTests {
    static let flow = FlowDefinition(
        id: "study", version: 1, steps: [Step("welcome"), Step("consent"), Step("done")])
    static let t0: Int64 = 1_790_000_000_000_000  // µs since 1970
    static let second: Int64 = 1_000_000
    static let day: Int64 = 86_400 * second

    /// A session of `flowID` from (kind, step or name, seconds after start); session_started first.
    static func session(
        _ number: Int, user: String, start: Int64, flowID: String? = "study", _ moves: [(EventKind, String, Int64)]
    ) -> RecordedSession {
        var events = [RecordedEvent(kind: .sessionStarted, flowID: flowID, time: start, seq: 0)]
        for (index, (kind, value, seconds)) in moves.enumerated() {
            let isStep = kind.isStepEvent
            // Events outside the flow's steps carry no flow id, as the SDK records feature use.
            events.append(
                RecordedEvent(
                    kind: kind, flowID: isStep || kind == .flowCompleted ? flowID : nil, stepID: isStep ? value : nil,
                    name: isStep ? nil : value, time: start + seconds * second, seq: index + 1))
        }
        return RecordedSession(
            sessionID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID(),
            userID: user, flowID: flowID, flowVersion: flowID == nil ? nil : 1, context: [:], events: events)
    }

    static let people: [RecordedSession] = [
        // A drops at consent; an hour later, outside any flow: opened, then share.
        session(
            1, user: "A", start: t0,
            [(.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3)]),
        session(
            2, user: "A", start: t0 + 3_600 * second, flowID: nil, [(.custom, "opened", 1), (.featureUsed, "share", 2)]),
        // B drops at welcome and never comes back.
        session(3, user: "B", start: t0, [(.stepViewed, "welcome", 1)]),
        // C drops at consent; ten seconds later, in the same session, asks for help.
        session(
            4, user: "C", start: t0,
            [(.stepViewed, "welcome", 1), (.stepViewed, "consent", 2), (.featureUsed, "help", 12)]),
        // D completes: not followed after a drop.
        session(
            5, user: "D", start: t0,
            [
                (.stepViewed, "welcome", 1), (.stepViewed, "consent", 2), (.stepViewed, "done", 3),
                (.flowCompleted, "", 4),
            ]),
        // E drops at consent; comes back eight days later: outside the 7-day window.
        session(6, user: "E", start: t0, [(.stepViewed, "welcome", 1), (.stepViewed, "consent", 2)]),
        session(7, user: "E", start: t0 + 8 * day, flowID: nil, [(.custom, "opened", 1)]),
    ]

    static func options(_ mode: PathOptions.Mode, unit: FunnelOptions.Unit = .session) -> PathOptions {
        var options = PathOptions()
        options.mode = mode
        options.unit = unit
        options.until = Date(timeIntervalSince1970: Double(t0 + 30 * day) / 1_000_000)
        return options
    }

    static func counts(_ report: PathReport) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: report.paths.map { ($0.events.joined(separator: " > "), $0.units) })
    }

    @Test func afterADropAtAStepFollowsThePersonAcrossSessions() throws {
        let report = try PathAggregator(
            flow: Self.flow, options: Self.options(.afterDrop(step: "consent")), now: Date()
        )
        .report(of: Self.people)
        // A, C and E dropped at consent; A's next events are in a later session, C's in the same
        // one, E's come after the window.
        #expect(report.units == 3)
        #expect(
            Self.counts(report) == [
                "session_started > custom:opened > feature_used:share": 1, "feature_used:help > (end)": 1, "(end)": 1,
            ])
        #expect(report.paths.allSatisfy { abs($0.share - 1.0 / 3) < 1e-12 })
        // Without a step, B (dropped at welcome, nothing after) joins E in "(end)", now first.
        let any = try PathAggregator(flow: Self.flow, options: Self.options(.afterDrop(step: nil)), now: Date())
            .report(of: Self.people)
        #expect(any.units == 4)
        #expect(any.paths.first?.events == ["(end)"])
        #expect(any.paths.first?.units == 2)
        // Depth 1: A's path is its next event only.
        var shallow = Self.options(.afterDrop(step: "consent"))
        shallow.depth = 1
        let one = try PathAggregator(flow: Self.flow, options: shallow, now: Date()).report(of: Self.people)
        #expect(Self.counts(one) == ["session_started": 1, "feature_used:help": 1, "(end)": 1])
    }

    @Test func betweenTwoStepsTakesTheSessionsEventsBetweenTheViews() throws {
        let report = try PathAggregator(
            flow: Self.flow, options: Self.options(.between("welcome", "consent")), now: Date()
        )
        .report(of: Self.people)
        // A completed welcome before viewing consent; C, D and E went straight on; B never viewed consent.
        #expect(report.units == 4)
        #expect(Self.counts(report) == ["step_completed:welcome": 1, "(nothing)": 3])
        #expect(report.paths.first?.events == ["(nothing)"])
    }

    /// Per user between two steps, a person's first session counts; two first sessions that start
    /// at the same microsecond give the smaller path by its labels, whichever is read first and
    /// whichever part reads it (the parts number labels in the order they meet them).
    @Test func perUserBetweenTakesTheFirstSessionAndSettlesATieByLabel() throws {
        let options = Self.options(.between("welcome", "consent"), unit: .user)
        let aggregator = PathAggregator(flow: Self.flow, options: options, now: Date())
        let skips = Self.session(
            1, user: "A", start: Self.t0,
            [(.stepViewed, "welcome", 1), (.stepSkipped, "welcome", 2), (.stepViewed, "consent", 3)])
        let helps = Self.session(
            2, user: "A", start: Self.t0,
            [(.stepViewed, "welcome", 1), (.featureUsed, "help", 2), (.stepViewed, "consent", 3)])
        // A day later: not the first session, not counted.
        let later = Self.session(
            3, user: "A", start: Self.t0 + Self.day, [(.stepViewed, "welcome", 1), (.stepViewed, "consent", 2)])
        for order in [[skips, helps], [helps, skips]] {
            let whole = try aggregator.report(of: order + [later])
            #expect(Self.counts(whole) == ["feature_used:help": 1])
            var first = aggregator
            first.add(order[0])
            var second = aggregator
            second.add(later)
            second.add(order[1])
            first.merge(second)
            #expect(Self.counts(try first.report()) == ["feature_used:help": 1])
        }
    }

    @Test func perUserAndMergedPartsGiveTheSameCounts() throws {
        let aggregator = PathAggregator(
            flow: Self.flow, options: Self.options(.afterDrop(step: nil), unit: .user), now: Date())
        let whole = try aggregator.report(of: Self.people)
        #expect(whole.units == 4)
        var random = Xoshiro256StarStar(seed: 7)
        for _ in 0..<5 {
            var parts = [aggregator, aggregator, aggregator]
            for session in Self.people.shuffled(using: &random) {
                parts[Int.random(in: 0..<3, using: &random)].add(session)
            }
            var merged = parts[1]
            merged.merge(parts[2])
            merged.merge(parts[0])
            #expect(try merged.report() == whole)
        }
    }

    /// Two sessions of one person that started at the same microsecond, with events at the same
    /// times and seqs: after the drop their events tie, and the path takes them by label, in
    /// whatever order the parts of a read were merged.
    @Test func tiedEventsOfTwoSessionsFollowTheirLabelsInEveryMergeOrder() throws {
        let aggregator = PathAggregator(
            flow: Self.flow, options: Self.options(.afterDrop(step: "welcome"), unit: .user), now: Date())
        // Both drop at welcome; then "zoom" in one, "help" in the other, both 2 s after the start.
        let first = Self.session(1, user: "A", start: Self.t0, [(.stepViewed, "welcome", 1), (.custom, "zoom", 2)])
        let second = Self.session(2, user: "A", start: Self.t0, [(.stepViewed, "welcome", 1), (.custom, "help", 2)])
        var reports: [PathReport] = []
        for (one, other) in [(first, second), (second, first)] {
            reports.append(try aggregator.report(of: [one, other]))
            var left = aggregator
            left.add(one)
            var right = aggregator
            right.add(other)
            left.merge(right)
            reports.append(try left.report())
        }
        // The views of welcome tie too (both at 1 s), before the anchor: not in the path.
        #expect(Self.counts(reports[0]) == ["custom:help > custom:zoom > (end)": 1])
        #expect(reports.allSatisfy { $0 == reports[0] })
    }

    /// After a drop every event read is kept until the end: 24 bytes each, the label a number.
    @Test func anEventKeptAfterADropTakesTwentyFourBytes() {
        #expect(MemoryLayout<PathAggregator.Entry>.stride == 24)
    }

    @Test func transitionsCountEveryUnitAndRender() throws {
        let report = try PathAggregator(flow: Self.flow, options: Self.options(.afterDrop(step: nil)), now: Date())
            .report(of: Self.people)
        // Position 1 → 2 links hold every unit whose path has a second event.
        let first = report.transitions.filter { $0.step == 1 }
        let linked: Int = first.map(\.units).reduce(0, +)
        let longer: Int = report.paths.filter { $0.events.count > 1 }.map(\.units).reduce(0, +)
        #expect(linked == longer)
        let opened = first.contains { link in
            link.from == "session_started" && link.to == "custom:opened" && link.units == 1
        }
        #expect(opened)
        // Every unit is in one box of the first position.
        let boxed: Int = report.nodes.filter { $0.step == 1 }.map(\.units).reduce(0, +)
        #expect(boxed == report.units)
        let html = report.html()
        #expect(html.contains("<path d=\"M"))
        #expect(try report.rendered(.csv).split(separator: "\n").count == 1 + report.paths.count)
        #expect(try report.rendered(.json).contains("\"distinct_paths\""))
    }
}
