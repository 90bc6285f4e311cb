import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

/// Hand-built sessions, one rule each; expected counts are worked out in the comments.
@Suite struct FunnelReportTests {
    /// welcome → health (only where healthDataAvailable) → consent (skippable) → done
    static let flow = FlowDefinition(
        id: "study", version: 1,
        steps: [
            Step("welcome"),
            Step("health", when: "healthDataAvailable"),
            Step("consent", skippable: true),
            Step("done"),
        ])

    static let t0: Int64 = 1_790_000_000_000_000  // µs since 1970

    /// A session from (kind, step, seconds after start) triples; session_started comes first.
    static func session(
        _ number: Int, user: String? = nil, context: [String: JSONValue] = [:], start: Int64 = t0,
        _ moves: [(EventKind, String?, Double)]
    ) -> RecordedSession {
        var events = [
            RecordedEvent(
                kind: .sessionStarted, flowID: "study", flowVersion: 1, time: start, seq: 0,
                properties: ["context": .object(context)])
        ]
        for (index, move) in moves.enumerated() {
            events.append(
                RecordedEvent(
                    kind: move.0, flowID: "study", flowVersion: 1, stepID: move.1,
                    time: start + Int64(move.2 * 1_000_000), seq: index + 1))
        }
        let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
        return RecordedSession(
            sessionID: id, userID: user ?? "user-\(number)", flowID: "study", flowVersion: 1, context: context,
            events: events)
    }

    static func completeRun(_ number: Int, context: [String: JSONValue], user: String? = nil, start: Int64 = t0)
        -> RecordedSession
    {
        var moves: [(EventKind, String?, Double)] = [(.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 3)]
        var clock = 3.0
        if context["healthDataAvailable"] == .bool(true) {
            moves += [(.stepViewed, "health", clock), (.stepCompleted, "health", clock + 4)]
            clock += 4
        }
        moves += [
            (.stepViewed, "consent", clock), (.stepSkipped, "consent", clock + 2),
            (.stepViewed, "done", clock + 2), (.stepCompleted, "done", clock + 5), (.flowCompleted, nil, clock + 5),
        ]
        return session(number, user: user, context: context, start: start, moves)
    }

    static var options: FunnelOptions {
        var options = FunnelOptions()
        options.reportEnd = Date(timeIntervalSince1970: Double(t0) / 1_000_000 + 30 * 86_400)
        return options
    }

    static func step(_ report: FunnelReport, _ id: String, group: Int = 0) throws -> FunnelReport.StepRow {
        try #require(report.groups[group].steps.first { $0.step == id })
    }

    @Test func conditionalStepCountsOnlyWhereItApplies() throws {
        // Two sessions with health data, one without; all complete.
        let sessions = [
            Self.completeRun(1, context: ["healthDataAvailable": true]),
            Self.completeRun(2, context: ["healthDataAvailable": true]),
            Self.completeRun(3, context: ["healthDataAvailable": false]),
        ]
        let report = try FunnelAggregator(flow: Self.flow, options: Self.options, now: Date()).report(of: sessions)
        let health = try Self.step(report, "health")
        #expect(health.eligible == 2)
        #expect(health.viewed == 2)
        #expect(health.droppedHere == 0)
        #expect(health.conversionFromStart == 1)
        // consent follows health for two sessions and welcome for the third: all reached it from their previous step.
        let consent = try Self.step(report, "consent")
        #expect(consent.eligible == 3)
        #expect(consent.conversionFromPrevious == 1)
        #expect(consent.skipped == 3)
        #expect(consent.completed == 0)
        #expect(report.groups[0].totals.completed == 3)
        #expect(report.groups[0].totals.completionRate == 1)
    }

    @Test func droppedVersusInProgressByInactivityBeforeTheReportEnd() throws {
        var options = FunnelOptions()
        let end = Self.t0 + 3_600 * 1_000_000  // the report is one hour after t0
        options.reportEnd = Date(timeIntervalSince1970: Double(end) / 1_000_000)
        let sessions = [
            // Last activity 2 s after t0: inactive 59 min ≥ 30 min → dropped at welcome.
            Self.session(1, [(.stepViewed, "welcome", 2)]),
            // Last activity 50 min after t0: 10 min before the end → in progress at consent.
            Self.session(
                2, context: ["healthDataAvailable": false],
                [(.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 60), (.stepViewed, "consent", 3_000)]),
            // Abandoned 1 s ago: dropped whatever the inactivity.
            Self.session(
                3, start: end - 10_000_000,
                [(.stepViewed, "welcome", 1), (.flowAbandoned, "welcome", 9)]),
        ]
        let report = try FunnelAggregator(flow: Self.flow, options: options, now: Date()).report(of: sessions)
        let totals = report.groups[0].totals
        #expect(totals.started == 3)
        #expect(totals.dropped == 2)
        #expect(totals.inProgress == 1)
        #expect(totals.completionRate == 0)
        let welcome = try Self.step(report, "welcome")
        #expect(welcome.droppedHere == 2)
        // The in-progress session is reported apart: not in welcome's viewed count.
        #expect(welcome.viewed == 2)
        #expect(try Self.step(report, "consent").inProgressHere == 1)
    }

    @Test func completionAfterTheWindowDoesNotCount() throws {
        var options = Self.options
        options.window = 60  // one minute
        let late = Self.session(
            1, context: ["healthDataAvailable": false],
            [
                (.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 10), (.stepViewed, "consent", 20),
                (.stepCompleted, "consent", 30), (.stepViewed, "done", 40), (.stepCompleted, "done", 120),
                (.flowCompleted, nil, 120),
            ])
        let report = try FunnelAggregator(flow: Self.flow, options: options, now: Date()).report(of: [late])
        #expect(report.groups[0].totals.completed == 0)
        #expect(report.groups[0].totals.dropped == 1)
        let done = try Self.step(report, "done")
        #expect(done.viewed == 1)
        #expect(done.completed == 0)
        #expect(done.droppedHere == 1)
    }

    @Test func timesAreType7QuantilesOfTheSessions() throws {
        // welcome time on step = completion − view: 1, 2, 3, 4, 10 s. NumPy:
        // np.percentile([1,2,3,4,10], [50, 90]) = [3.0, 7.6].
        let sessions = [1.0, 2, 3, 4, 10].enumerated().map { index, seconds in
            Self.session(index, [(.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 1 + seconds)])
        }
        let report = try FunnelAggregator(flow: Self.flow, options: Self.options, now: Date()).report(of: sessions)
        let welcome = try Self.step(report, "welcome")
        #expect(welcome.timeOnStep.count == 5)
        #expect(abs((welcome.timeOnStep.median ?? 0) - 3.0) < 1e-6)
        #expect(abs((welcome.timeOnStep.p90 ?? 0) - 7.6) < 1e-6)
        #expect(abs((welcome.timeFromStart.median ?? 0) - 1.0) < 1e-6)
    }

    @Test func perUserCountsAUserOnceWithTheBestOutcome() throws {
        let day: Int64 = 86_400 * 1_000_000
        let sessions = [
            // user a: dropped on day 0, completed on day 1 → one completed user.
            Self.session(1, user: "a", [(.stepViewed, "welcome", 1)]),
            Self.completeRun(2, context: ["healthDataAvailable": false], user: "a", start: Self.t0 + day),
            // user b: two dropped sessions, the later one at consent.
            Self.session(3, user: "b", [(.stepViewed, "welcome", 1)]),
            Self.session(
                4, user: "b", start: Self.t0 + day,
                [(.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3)]),
        ]
        var options = Self.options
        options.unit = .user
        let report = try FunnelAggregator(flow: Self.flow, options: options, now: Date()).report(of: sessions)
        let totals = report.groups[0].totals
        #expect(totals.started == 2)
        #expect(totals.completed == 1)
        #expect(totals.dropped == 1)
        #expect(try Self.step(report, "consent").droppedHere == 1)
        #expect(try Self.step(report, "welcome").droppedHere == 0)
        #expect(try Self.step(report, "welcome").viewed == 2)
    }

    @Test func breakdownByContextAttribute() throws {
        let sessions = [
            Self.completeRun(1, context: ["platform": "ios", "healthDataAvailable": true]),
            Self.session(2, context: ["platform": "android"], [(.stepViewed, "welcome", 1)]),
            Self.completeRun(3, context: ["platform": "android", "healthDataAvailable": false]),
        ]
        var options = Self.options
        options.breakdown = "platform"
        let report = try FunnelAggregator(flow: Self.flow, options: options, now: Date()).report(of: sessions)
        #expect(report.groups.map(\.breakdown) == ["android", "ios"])
        #expect(report.groups[0].totals.started == 2)
        #expect(report.groups[0].totals.completionRate == 0.5)
        #expect(report.groups[1].totals.completionRate == 1)
        #expect(report.table().header.first == "platform")
    }

    @Test func completionOrderedBeforeTheLastStepBySkewStillCountsTheStep() throws {
        // Skew correction can put flow_completed a moment before the last step's completion.
        let session = Self.session(
            1, context: ["healthDataAvailable": false],
            [
                (.stepViewed, "welcome", 1), (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3),
                (.stepCompleted, "consent", 4), (.stepViewed, "done", 5), (.flowCompleted, nil, 6.0),
                (.stepCompleted, "done", 6.2),
            ])
        let report = try FunnelAggregator(flow: Self.flow, options: Self.options, now: Date()).report(of: [session])
        #expect(try Self.step(report, "done").completed == 1)
        #expect(report.groups[0].totals.completed == 1)
    }

    @Test func sessionsOfOtherFlowsAreNotCounted() throws {
        var other = Self.completeRun(1, context: [:])
        other.flowID = "another"
        let report = try FunnelAggregator(flow: Self.flow, options: Self.options, now: Date()).report(of: [other])
        #expect(report.groups.isEmpty)
        #expect(report.otherFlowSessions == 1)
    }

    /// A session file's read hands the flow funnel each event's class, never the event: with
    /// events of other flows, of no flow, of unknown steps, after the window, ties and contexts
    /// that change which steps apply, per session and per user, broken down or not, the report
    /// equals the one from the decoded sessions (by variant it reads decoded sessions).
    @Test func aSessionFileReadCountsAsTheDecodedSessions() throws {
        var random = SessionTraceTests.Random(state: 71)
        let kinds: [EventKind] = [
            .stepViewed, .stepViewed, .stepCompleted, .stepSkipped, .stepBack, .flowCompleted, .flowAbandoned, .custom,
        ]
        let steps: [String?] = ["welcome", "health", "consent", "done", "elsewhere", nil]
        let flows: [String?] = ["study", "study", "study", "other", nil]
        let contexts: [[String: JSONValue]] = [
            [:], ["healthDataAvailable": .bool(true), "platform": .string("ios")],
            ["healthDataAvailable": .bool(false), "platform": .string("android")],
        ]
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        var all: [RecordedSession] = []
        for trace in 0..<300 {
            let sessions = (0..<Int(random.next() % 2 + 1)).map { part in
                let start = Self.t0 + Int64(random.next() % 40) * 86_400_000_000
                var time = start
                var events = (0..<Int(random.next() % 14)).map { index in
                    if random.next() % 3 != 0 { time += Int64(random.next() % 20 * 3_600) * 1_000_000 }
                    let kind = kinds[Int(random.next() % UInt64(kinds.count))]
                    let exposure: [String: JSONValue] =
                        kind == .custom ? ["variant": .string(random.next() % 2 == 0 ? "a" : "b")] : [:]
                    return RecordedEvent(
                        kind: kind == .custom && random.next() % 2 == 0 ? .experimentExposure : kind,
                        flowID: flows[Int(random.next() % UInt64(flows.count))], flowVersion: 1,
                        stepID: steps[Int(random.next() % UInt64(steps.count))], name: kind == .custom ? "exp" : nil,
                        time: time, seq: index + 1, properties: exposure)
                }
                // Some sessions of no events at all (a session whose events all fell out of a trace).
                if (events.isEmpty && random.next() % 3 != 0) || random.next() % 4 == 0 {
                    events.insert(RecordedEvent(kind: .sessionStarted, flowID: "study", time: start, seq: 0), at: 0)
                }
                return RecordedSession(
                    sessionID: SessionFileTests.id(trace * 10 + part), userID: "u\(random.next() % 50)",
                    flowID: random.next() % 6 == 0 ? "other" : "study", flowVersion: 1,
                    context: contexts[Int(random.next() % UInt64(contexts.count))], events: events)
            }
            all += sessions
            _ = try file.put(
                SessionFileTests.id(trace), sessions: sessions, events: sessions.reduce(0) { $0 + $1.events.count },
                irregular: false, firstEventID: SessionFileTests.id(0),
                lastEventID: SessionFileTests.id(0, milliseconds: 1_700_000_000_005))
        }
        for unit in [FunnelOptions.Unit.session, .user] {
            for breakdown in [nil, "platform", "variant:exp"] {
                var options = Self.options
                options.unit = unit
                options.breakdown = breakdown
                options.window = 3 * 86_400
                let aggregator = FunnelAggregator(flow: Self.flow, options: options, now: Date())
                #expect(aggregator.readsClasses == (breakdown != "variant:exp"))
                let expected = try aggregator.report(of: all)
                var merged = aggregator
                for share in try file.shares(3) {
                    var part = aggregator
                    _ = try file.read(
                        share, bounds: .init(since: nil, until: nil), people: nil, cohort: nil, into: &part)
                    merged.merge(part)
                }
                #expect(expected.groups.reduce(0) { $0 + $1.totals.started } > (unit == .session ? 100 : 40))
                #expect(expected.groups.contains { $0.totals.completed > 0 })
                #expect(expected.otherFlowSessions > 0)
                #expect(merged.report() == expected, "\(unit) \(breakdown ?? "no breakdown")")
            }
        }
    }

    @Test func jsonKeysAreStableSnakeCase() throws {
        let report = try FunnelAggregator(flow: Self.flow, options: Self.options, now: Date()).report(of: [
            Self.completeRun(1, context: [:])
        ])
        let json = try report.rendered(.json)
        for key in [
            "\"flow_id\"", "\"conversion_from_previous\"", "\"time_on_step\"", "\"dropped_here\"",
            "\"completion_rate\"",
        ] {
            #expect(json.contains(key), "missing \(key)")
        }
    }
}
