import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Hand-built sessions with round counts; every expected forecast is worked out by hand in the
/// comments (probability mass pushed along each path), not taken from the code.
@Suite struct SimulationReportTests {
    static let t0: Int64 = 1_790_000_000_000_000  // µs since 1970

    /// A finished session: views of `steps` in order (one every 10 s), then completion or not.
    static func session(
        _ number: Int, flow: String = "study", user: String? = nil, context: [String: JSONValue] = [:],
        views steps: [String], completed: Bool, variant: String? = nil
    ) -> RecordedSession {
        var events = [
            RecordedEvent(
                kind: .sessionStarted, flowID: flow, flowVersion: 1, time: t0, seq: 0,
                properties: ["context": .object(context)])
        ]
        if let variant {
            events.append(
                RecordedEvent(
                    kind: .experimentExposure, flowID: flow, name: "copy", time: t0, seq: 1,
                    properties: ["variant": .string(variant)]))
        }
        var clock = t0
        for (index, step) in steps.enumerated() {
            clock += 10_000_000
            events.append(
                RecordedEvent(
                    kind: .stepViewed, flowID: flow, flowVersion: 1, stepID: step, time: clock, seq: events.count))
            if index < steps.count - 1 || completed {
                events.append(
                    RecordedEvent(
                        kind: .stepCompleted, flowID: flow, flowVersion: 1, stepID: step, time: clock + 5_000_000,
                        seq: events.count))
            }
        }
        if completed {
            events.append(
                RecordedEvent(
                    kind: .flowCompleted, flowID: flow, flowVersion: 1, time: clock + 6_000_000, seq: events.count))
        }
        let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
        return RecordedSession(
            sessionID: id, userID: user ?? "user-\(number)", flowID: flow, flowVersion: 1, context: context,
            events: events)
    }

    /// Sessions numbered from `first`: `count` of each (views, completed) pattern.
    static func sessions(
        _ patterns: [(count: Int, views: [String], completed: Bool)], context: [String: JSONValue] = [:], first: Int = 0
    )
        -> [RecordedSession]
    {
        var result: [RecordedSession] = []
        for pattern in patterns {
            for _ in 0..<pattern.count {
                result.append(
                    session(first + result.count, context: context, views: pattern.views, completed: pattern.completed))
            }
        }
        return result
    }

    static let now = Date(timeIntervalSince1970: Double(t0) / 1_000_000 + 30 * 86_400)

    static func flow(_ steps: [Step], version: Int = 1) -> FlowDefinition {
        FlowDefinition(id: "study", version: version, steps: steps)
    }

    /// a → b → c; of 1000 sessions 100 drop on a, 90 on b, 81 on c: a tenth drops on each step.
    static let linear = flow([Step("a"), Step("b"), Step("c")])
    static let linearSessions = sessions([
        (100, ["a"], false), (90, ["a", "b"], false), (81, ["a", "b", "c"], false), (729, ["a", "b", "c"], true),
    ])

    static func report(
        _ candidate: FlowDefinition, baseline: FlowDefinition = linear, sessions: [RecordedSession] = linearSessions,
        draws: Int = 200, configure: (inout SimulationOptions) -> Void = { _ in }
    ) throws -> SimulationReport {
        var options = SimulationOptions(candidate: candidate, baseline: baseline)
        options.draws = draws
        configure(&options)
        return try SimulationSampler(options: options, now: now).report(of: sessions)
    }

    @Test func removingAStepRemovesItsDropOut() throws {
        let report = try Self.report(Self.flow([Step("a"), Step("c")], version: 2))
        // 1000 × 0.9 (a) × 0.9 (c) = 810 complete; recorded 729.
        #expect(abs((report.forecastCompletion.value ?? 0) - 0.81) < 1e-12)
        #expect(abs((report.observedCompletion.value ?? 0) - 0.729) < 1e-12)
        #expect(abs((report.completionDelta.value ?? 0) - 0.081) < 1e-12)
        #expect(report.removedSteps == ["b"])
        let c = try #require(report.steps.last)
        #expect(c.step == "c" && c.eligible == 1000)
        #expect(abs(c.viewed - 900) < 1e-9 && abs(c.droppedHere - 90) < 1e-9)
        #expect(abs((c.observed?.conversionFromStart ?? 0) - 0.81) < 1e-12)
        // The baseline simulated by the same model is the recording, draw by draw.
        #expect(abs((report.backTest.forecastCompletion.value ?? 0) - 0.729) < 1e-12)
        #expect(report.backTest.withinInterval)
        #expect(report.sampleSizePerArm == PowerAnalysis.sampleSizePerArm(baseline: 0.729, effect: 0.081))
        let interval = try #require(report.completionDelta.interval)
        #expect(interval.lower > 0 && interval.upper < 0.2 && interval.contains(0.081))
    }

    @Test func aNewStepNeedsAnAssumption() throws {
        let candidate = Self.flow([Step("a"), Step("tutorial"), Step("b"), Step("c")], version: 2)
        #expect(throws: SimulationError.self) { try Self.report(candidate) }
        do {
            _ = try Self.report(candidate)
        } catch let error as SimulationError {
            #expect(error.code == .missingBehaviour)
            #expect(error.message.contains("--assume tutorial=RATE"))
        }
        let report = try Self.report(candidate) { $0.assumptions = ["tutorial": 0.5] }
        // 0.9 × 0.5 × 0.9 × 0.9 = 0.3645; the assumed step has no uncertainty of its own.
        #expect(abs((report.forecastCompletion.value ?? 0) - 0.3645) < 1e-12)
        #expect(report.steps[1].source == "assumed")
        #expect(report.assumptions.contains { $0.contains("'tutorial'") && $0.contains("50.0%") })
    }

    @Test func anAssumptionMustNameACandidateStep() throws {
        do {
            _ = try Self.report(Self.linear) { $0.assumptions = ["nope": 0.5] }
            Issue.record("expected an error")
        } catch let error as SimulationError {
            #expect(error.code == .badAssumption)
            #expect(error.message.contains("'nope'"))
        }
        #expect(throws: SimulationError.self) { try SimulationOptions.assumption(parsing: "a=1.5") }
        #expect(throws: SimulationError.self) { try SimulationOptions.assumption(parsing: "a") }
        #expect(try SimulationOptions.assumption(parsing: "a=0.25") == ("a", 0.25))
    }

    /// a → h [healthDataAvailable] → c. With health data (500): h loses 100, c 40 of 400 → 360.
    /// Without (500): c loses 25 → 475. Dropping h from the candidate: the health stratum keeps
    /// its own c share (0.1) → 450, the other its own (0.05) → 475: 925 of 1000. Pooling c over
    /// both strata (65 of 900) would give 927.8 instead.
    @Test func behaviourIsEstimatedWithinTheBaselinesConditions() throws {
        let baseline = Self.flow([Step("a"), Step("h", when: "healthDataAvailable"), Step("c")])
        let data =
            Self.sessions(
                [(100, ["a", "h"], false), (40, ["a", "h", "c"], false), (360, ["a", "h", "c"], true)],
                context: ["healthDataAvailable": true])
            + Self.sessions(
                [(25, ["a", "c"], false), (475, ["a", "c"], true)], context: ["healthDataAvailable": false],
                first: 500)
        let report = try Self.report(
            Self.flow([Step("a"), Step("c")], version: 2), baseline: baseline, sessions: data)
        #expect(report.strata == 2)
        #expect(abs((report.forecastCompletion.value ?? 0) - 0.925) < 1e-12)
        #expect(abs((report.observedCompletion.value ?? 0) - 0.835) < 1e-12)
        #expect(report.backTest.withinInterval)
        // The condition is the candidate's own: a step that applies to nobody is eligible for none.
        let never = try Self.report(
            Self.flow([Step("a"), Step("h", when: "healthDataAvailable && false"), Step("c")], version: 3),
            baseline: baseline, sessions: data)
        #expect(never.steps[1].eligible == 0)
        #expect(abs((never.forecastCompletion.value ?? 0) - 0.925) < 1e-12)
    }

    /// a (jumps to c) → b → c. Of 1000: 100 drop on a, 180 jump to c, 720 go to b; b loses 72;
    /// c is viewed by 180 + 648 = 828 and loses 80: 748 complete. Without b, a's jump lands on
    /// the next step anyway: 900 reach c and 900 × 748/828 complete.
    @Test func jumpsCarryTheirShareAhead() throws {
        let baseline = Self.flow([Step("a", jumps: ["c"]), Step("b"), Step("c")])
        let data = Self.sessions([
            (100, ["a"], false), (72, ["a", "b"], false), (20, ["a", "c"], false), (160, ["a", "c"], true),
            (60, ["a", "b", "c"], false), (588, ["a", "b", "c"], true),
        ])
        let report = try Self.report(
            Self.flow([Step("a", jumps: ["c"]), Step("c")], version: 2), baseline: baseline, sessions: data)
        #expect(abs((report.backTest.forecastCompletion.value ?? 0) - 0.748) < 1e-12)
        #expect(abs((report.forecastCompletion.value ?? 0) - 900 * 748 / 828 / 1000) < 1e-12)
    }

    /// 2000 single-session users, 70 % complete: the percentile interval of the recorded rate
    /// should match the binomial one, 0.7 ± 1.96 √(0.7 · 0.3 / 2000) (width 0.0402). With 200 users
    /// of 10 identical sessions each, the users are the sampling unit: width 2 · 1.96 √(0.21 / 200)
    /// = 0.127 — a session bootstrap would have kept 0.0402.
    @Test(arguments: [1, 10])
    func intervalsMatchTheBinomialOverUsers(sessionsPerUser: Int) throws {
        let flow = Self.flow([Step("a")])
        var data: [RecordedSession] = []
        for number in 0..<2000 {
            let user = number / sessionsPerUser
            data.append(
                Self.session(number, user: "user-\(user)", views: ["a"], completed: user % 10 < 7))
        }
        let report = try Self.report(flow, baseline: flow, sessions: data, draws: 4000)
        let interval = try #require(report.observedCompletion.interval)
        let users = Double(2000 / sessionsPerUser)
        let expected = 2 * 1.959964 * (0.21 / users).squareRoot()
        #expect(abs((interval.upper - interval.lower) / expected - 1) < 0.1)
        #expect(report.data.users == 2000 / sessionsPerUser)
    }

    @Test func theSameSeedGivesTheSameReport() throws {
        let candidate = Self.flow([Step("a"), Step("c")], version: 2)
        let first = try Self.report(candidate) { $0.seed = 42 }
        let again = try Self.report(candidate) { $0.seed = 42 }
        let other = try Self.report(candidate) { $0.seed = 43 }
        #expect(first == again)
        #expect(first.forecastCompletion.interval != other.forecastCompletion.interval)
    }

    @Test func selectsFinishedSessionsOfTheBaselineVersionAndVariant() throws {
        var data = Self.linearSessions
        // Another variant, another version, another flow, and one still in progress.
        data.append(Self.session(5000, views: ["a", "b", "c"], completed: true, variant: "treatment"))
        var otherVersion = Self.session(5001, views: ["a"], completed: false)
        otherVersion.flowVersion = 2
        data.append(otherVersion)
        data.append(Self.session(5002, flow: "other", views: ["x"], completed: true))
        var running = Self.session(5003, views: ["a"], completed: false, variant: "control")
        for index in running.events.indices {
            running.events[index].time = Self.t0 + 30 * 86_400 * 1_000_000 - 60_000_000
        }
        data.append(running)
        for index in 0..<Self.linearSessions.count {
            data[index] = Self.session(
                index, views: data[index].events.compactMap(\.stepID).uniqued(),
                completed: data[index].events.contains { $0.kind == .flowCompleted }, variant: "control")
        }
        let report = try Self.report(Self.linear, sessions: data) {
            $0.variant = .init(experiment: "copy", variant: "control")
        }
        #expect(report.data.sessionsRead == 1004)
        #expect(report.data.sessions == 1000)
        #expect(report.data.otherVariantSessions == 1)
        #expect(report.data.otherVersionSessions == 1)
        #expect(report.data.otherSessions == 1)
        #expect(report.data.inProgressSessions == 1)
        #expect(abs((report.observedCompletion.value ?? 0) - 0.729) < 1e-12)
    }

    @Test func noUsableSessionIsAClearError() {
        do {
            _ = try Self.report(Self.linear, sessions: [])
            Issue.record("expected an error")
        } catch let error as SimulationError {
            #expect(error.code == .noData)
            #expect(error.message.contains("'study' v1"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func rendersEveryFormat() throws {
        let report = try Self.report(Self.flow([Step("a"), Step("c")], version: 2))
        let text = try report.rendered(.text)
        #expect(text.contains("back-test") && text.contains("Assumptions:") && text.contains("+8.1 pp"))
        #expect(try report.rendered(.csv).split(separator: "\n").count == 3)
        #expect(try report.rendered(.markdown).contains("### Assumptions"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.rendered(.json).utf8)) as? [String: Any])
        for key in [
            "forecast_completion", "observed_completion", "completion_delta", "back_test", "sample_size_per_arm",
            "steps", "assumptions", "removed_steps", "data",
        ] {
            #expect(json[key] != nil, "missing \(key)")
        }
        let html = report.html()
        #expect(html.contains("data-table=\"forecast-steps\""))
        #expect(html.contains("<svg"))
        #expect(html.contains("data-key=\"completion-delta\""))
        #expect(!html.contains("src=\"http") && !html.contains("<link"))
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
