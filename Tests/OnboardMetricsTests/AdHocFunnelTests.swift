import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

/// Hand-built event sequences for every ad-hoc funnel rule; expected values are worked out in the comments.
@Suite struct AdHocFunnelTests {
    /// `"a@0 x@5 b@10"`: custom events named a, x, b at 0 s, 5 s, 10 s, seq 1, 2, 3.
    static func events(_ script: String, seqFrom first: Int = 1) -> [RecordedEvent] {
        script.split(separator: " ").enumerated().map { index, token in
            let parts = token.split(separator: "@")
            let seconds = parts.count == 2 ? Double(parts[1]) ?? 0 : 0
            return RecordedEvent(
                kind: .custom, name: String(parts[0]), time: Int64(seconds * 1_000_000), seq: first + index)
        }
    }

    static func funnel(
        _ steps: String, _ order: AdHocFunnel.Order = .ordered, window: TimeInterval = 3_600,
        unit: FunnelOptions.Unit = .session
    ) throws -> AdHocFunnel {
        try AdHocFunnel(steps: steps.split(separator: ",").map(String.init), order: order, window: window, unit: unit)
    }

    static func micro(_ seconds: [Int64]) -> [Int64] { seconds.map { $0 * 1_000_000 } }

    @Test func orderedAllowsOtherEventsBetween() throws {
        // a, b, c in order with x and y between: all three reached, at 0, 2, 4.
        let reach = try Self.funnel("a,b,c").furthestStep(events: Self.events("a@0 x@1 b@2 y@3 c@4"))
        #expect(reach == AdHocFunnel.Reach(depth: 3, times: Self.micro([0, 2, 4])))
        // Out of order: c before b never counts as step 3 in ordered mode; b follows a, so depth 2.
        let reversed = try Self.funnel("a,b,c").furthestStep(events: Self.events("a@0 c@1 b@2"))
        #expect(reversed.depth == 2)
    }

    @Test func strictIsBrokenByAnyEventBetween() throws {
        let strict = try Self.funnel("a,b,c", .strict)
        // x between a and b breaks the chain started at a; b then extends nothing: depth 1.
        #expect(strict.furthestStep(events: Self.events("a@0 x@1 b@2 c@3")).depth == 1)
        // Nothing between: depth 3.
        #expect(
            strict.furthestStep(events: Self.events("a@0 b@1 c@2")) == .init(depth: 3, times: Self.micro([0, 1, 2])))
        // x between b and c: a, b reached (depth 2), then broken.
        #expect(strict.furthestStep(events: Self.events("a@0 b@1 x@2 c@3")).depth == 2)
        // A repeated step is "something else" too: the second b does not match c.
        #expect(strict.furthestStep(events: Self.events("a@0 b@1 b@2 c@3")).depth == 2)
        // A later step-1 occurrence starts a new, unbroken chain: a x a b c -> 3 from the second a.
        #expect(
            strict.furthestStep(events: Self.events("a@0 x@1 a@2 b@3 c@4"))
                == .init(depth: 3, times: Self.micro([2, 3, 4])))
        // Ordered mode on the same broken sequence reaches the end.
        #expect(try Self.funnel("a,b,c").furthestStep(events: Self.events("a@0 x@1 b@2 c@3")).depth == 3)
    }

    @Test func strictCountsNonCustomEventsAndDropsUnmatchedEventsFromMixedTies() throws {
        let strict = try Self.funnel("a,b", .strict)
        // A session_started between breaks the chain like any other event.
        var between = Self.events("a@0 b@2")
        between.insert(RecordedEvent(kind: .sessionStarted, time: 1_000_000, seq: 9), at: 1)
        #expect(strict.furthestStep(events: between).depth == 1)
        // b and x at the same instant: PostHog expands the tie into its matched steps, so the
        // unmatched x leaves it and does not come between a and b, whatever the seq order.
        #expect(strict.furthestStep(events: Self.events("a@0 b@5 x@5")).depth == 2)
        #expect(strict.furthestStep(events: Self.events("a@0 x@5 b@5")).depth == 2)
        // An unmatched event alone at its instant still breaks the chain.
        #expect(strict.furthestStep(events: Self.events("a@0 x@4 b@5")).depth == 1)
    }

    @Test func tenStepsOverFourNamesAtOneInstantConvertThroughAllTen() throws {
        // PostHog's case: steps reuse four names; the user did each step once, all at t = 5.
        // Expanded, the tie holds a for steps 1, 5, 9, b for 2, 6, 10, c for 3, 7, d for 4, 8; in
        // step order each step finds an event the chain has not used yet: depth 10.
        let names = "a,b,c,d,a,b,c,d,a,b"
        let tied = Self.events(names.split(separator: ",").map { "\($0)@5" }.joined(separator: " "))
        for order in [AdHocFunnel.Order.ordered, .strict] {
            let reach = try Self.funnel(names, order).furthestStep(events: tied)
            #expect(reach == .init(depth: 10, times: Self.micro(Array(repeating: 5, count: 10))), "\(order)")
        }
        // Logged in reverse order, the same.
        let reversed = Self.events(names.split(separator: ",").reversed().map { "\($0)@5" }.joined(separator: " "))
        #expect(try Self.funnel(names).furthestStep(events: reversed).depth == 10)
        // Only as many steps as there are events: three events a, b, c at one instant fill a, b, c
        // and not the later a (each event fills at most one step of a chain).
        #expect(try Self.funnel(names).furthestStep(events: Self.events("c@5 b@5 a@5")).depth == 3)
    }

    @Test func oneEventMatchingSeveralStepsInATieFillsOneOfThem() throws {
        // Steps a, b, a: the tie {a, b} expands to a→1, b→2, a→3; the a entry for step 3 is the
        // event the chain used for step 1, so the chain stops at 2. A second a later completes it.
        let funnel = try Self.funnel("a,b,a")
        #expect(funnel.furthestStep(events: Self.events("a@0 b@0")).depth == 2)
        #expect(
            funnel.furthestStep(events: Self.events("a@0 b@0 a@1")) == .init(depth: 3, times: Self.micro([0, 0, 1])))
        // Two a's and a b at one instant: a₁→1, a₂ (step 1 already started at this instant), b→2, a₂→3.
        #expect(funnel.furthestStep(events: Self.events("a@0 a@0 b@0")).depth == 3)
    }

    @Test func anyOrderCountsDistinctStepsWithinOneWindow() throws {
        // c, a, b: all three within the window, in any order.
        let any = try Self.funnel("a,b,c", .any, window: 15)
        #expect(any.furthestStep(events: Self.events("c@0 a@1 b@2")) == .init(depth: 3, times: Self.micro([0, 1, 2])))
        // Ordered would only get a, b.
        #expect(try Self.funnel("a,b,c").furthestStep(events: Self.events("c@0 a@1 b@2")).depth == 2)
        // c@0 a@10 b@20, window 15: windows [0, 15] hold c, a and [10, 25] hold a, b: depth 2, the
        // first such window reported (c at 0, a at 10).
        #expect(any.furthestStep(events: Self.events("c@0 a@10 b@20")) == .init(depth: 2, times: Self.micro([0, 10])))
        // Repeats of one step count once.
        #expect(any.furthestStep(events: Self.events("b@0 b@1 b@2")).depth == 1)
    }

    @Test func anyOrderFillsOneStepPerEvent() throws {
        // One step_viewed(welcome) matches both "step_viewed" and "welcome" but fills only one.
        let any = try AdHocFunnel(steps: ["step_viewed", "welcome"], order: .any)
        let welcome = RecordedEvent(kind: .stepViewed, stepID: "welcome", time: 0, seq: 1)
        #expect(any.furthestStep(events: [welcome]).depth == 1)
        // A second step view fills the other step (the matching moves welcome over): depth 2.
        let modules = RecordedEvent(kind: .stepViewed, stepID: "modules", time: 1_000_000, seq: 2)
        #expect(any.furthestStep(events: [welcome, modules]).depth == 2)
        #expect(AdHocFunnel.maximumMatching([0b011: 1, 0b001: 1], stepCount: 2) == [0b011: 1, 0b001: 1])
    }

    @Test func laterChainThatGoesFurtherWins() throws {
        // Window 50 s. The chain from a@0 gets b@10, but c@120 is 120 s after its start: depth 2.
        // The chain from a@100 gets b@110 and c@120 (20 s): depth 3, times 100, 110, 120.
        let funnel = try Self.funnel("a,b,c", window: 50)
        #expect(
            funnel.furthestStep(events: Self.events("a@0 b@10 a@100 b@110 c@120"))
                == .init(depth: 3, times: Self.micro([100, 110, 120])))
    }

    @Test func reportedChainIsTheFirstToReachTheDepthWithTheLatestStart() throws {
        let funnel = try Self.funnel("a,b")
        // Two chains reach b: from a@0 (b@10) and from a@20 (b@30); the first to get there is reported.
        #expect(
            funnel.furthestStep(events: Self.events("a@0 b@10 a@20 b@30"))
                == .init(depth: 2, times: Self.micro([0, 10])))
        // a@0 and a@5 both reach b@10 with that event; the later start (5) is kept: 5 s to convert.
        #expect(
            funnel.furthestStep(events: Self.events("a@0 a@5 b@10")) == .init(depth: 2, times: Self.micro([5, 10])))
    }

    @Test func windowExpiryIsInclusive() throws {
        let events = Self.events("a@0 b@10 c@20")
        // c is 20 s after the start: outside a 15 s window (depth 2), inside a 20 s one (depth 3).
        #expect(try Self.funnel("a,b,c", window: 15).furthestStep(events: events).depth == 2)
        #expect(try Self.funnel("a,b,c", window: 20).furthestStep(events: events).depth == 3)
        #expect(try Self.funnel("a,b,c", .strict, window: 15).furthestStep(events: events).depth == 2)
        #expect(try Self.funnel("a,b,c", .any, window: 15).furthestStep(events: events).depth == 2)
    }

    @Test func timestampTiesAreOrderedByStepIndex() throws {
        // b is logged before a (seq 1, 2) but at the same instant: ties go by step index, a first.
        let tied = Self.events("b@5 a@5")
        #expect(try Self.funnel("a,b").furthestStep(events: tied) == .init(depth: 2, times: Self.micro([5, 5])))
        #expect(try Self.funnel("a,b", .strict).furthestStep(events: tied).depth == 2)
        // A strictly earlier b does not count.
        #expect(try Self.funnel("a,b").furthestStep(events: Self.events("b@4 a@5")).depth == 1)
    }

    @Test func oneEventFillsAtMostOneStepOfAChain() throws {
        // Steps a, a: one a reaches step 1 only; a second a reaches step 2.
        let funnel = try Self.funnel("a,a")
        #expect(funnel.furthestStep(events: Self.events("a@0")).depth == 1)
        #expect(funnel.furthestStep(events: Self.events("a@0 a@1")).depth == 2)
        #expect(try Self.funnel("a,a", .strict).furthestStep(events: Self.events("a@0 a@1")).depth == 2)
    }

    /// With few plain step names they are compared one by one, with more they are hashed: both
    /// ways give the rule's masks (the padding names match nothing, and come after).
    @Test(arguments: [0, 6])
    func matchingRule(padding: Int) throws {
        let funnel = try AdHocFunnel(
            steps: ["welcome", "flow_completed", "export", "feature_used:share", "step_completed:consent", "h1"]
                + (0..<padding).map { "unused-\($0)" })
        func mask(_ event: RecordedEvent) -> UInt64 { funnel.matchedSteps(event) }
        // step_viewed matches by step id; other step kinds only through KIND:VALUE.
        #expect(mask(RecordedEvent(kind: .stepViewed, stepID: "welcome", time: 0, seq: 1)) == 0b1)
        #expect(mask(RecordedEvent(kind: .stepCompleted, stepID: "welcome", time: 0, seq: 1)) == 0)
        #expect(mask(RecordedEvent(kind: .stepCompleted, stepID: "consent", time: 0, seq: 1)) == 0b10000)
        // Kind raw value.
        #expect(mask(RecordedEvent(kind: .flowCompleted, flowID: "f", time: 0, seq: 1)) == 0b10)
        // Name, whatever the kind: a custom event and a feature id.
        #expect(mask(RecordedEvent(kind: .custom, name: "export", time: 0, seq: 1)) == 0b100)
        #expect(mask(RecordedEvent(kind: .featureUsed, name: "export", time: 0, seq: 1)) == 0b100)
        // KIND:VALUE matches that kind only.
        #expect(mask(RecordedEvent(kind: .featureUsed, name: "share", time: 0, seq: 1)) == 0b1000)
        #expect(mask(RecordedEvent(kind: .custom, name: "share", time: 0, seq: 1)) == 0)
        // A highlight id matches both its showing and its dismissal.
        #expect(mask(RecordedEvent(kind: .highlightShown, name: "h1", time: 0, seq: 1)) == 0b100000)
        #expect(mask(RecordedEvent(kind: .highlightDismissed, name: "h1", time: 0, seq: 1)) == 0b100000)
        // Case-sensitive.
        #expect(mask(RecordedEvent(kind: .custom, name: "Export", time: 0, seq: 1)) == 0)
    }

    static func session(_ user: String, _ id: Int, _ script: String) -> RecordedSession {
        RecordedSession(
            sessionID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", id)) ?? UUID(),
            userID: user, flowID: nil, flowVersion: nil, context: [:], events: events(script))
    }

    @Test func perUserJoinsSessions() throws {
        // User u: a, b in one session and c 10 s later in another; user v: a only.
        let sessions = [
            Self.session("u", 1, "a@0 b@10"), Self.session("u", 2, "c@20"), Self.session("v", 3, "a@5"),
        ]
        // Per session: a in 2 of 3 sessions, b in 1, c in none (its session has no a).
        let perSession = try AdHocFunnelAggregator(funnel: Self.funnel("a,b,c")).report(of: sessions)
        #expect(perSession.units == 3)
        #expect(perSession.rows.map(\.count) == [2, 1, 0])
        // Per user: u reaches c (0 -> 10 -> 20), v reaches a: 2, 1, 1.
        let perUser = try AdHocFunnelAggregator(funnel: Self.funnel("a,b,c", unit: .user)).report(of: sessions)
        #expect(perUser.units == 2)
        #expect(perUser.rows.map(\.count) == [2, 1, 1])
        #expect(perUser.rows[2].timeToConvert.median == 10)
        // Strict per user: seq restarts per session, the merged order is by time: a b c, nothing between.
        #expect(
            try AdHocFunnelAggregator(funnel: Self.funnel("a,b,c", .strict, unit: .user)).report(of: sessions).rows.map(
                \.count) == [2, 1, 1])
    }

    @Test func reportCountsConversionsAndTimes() throws {
        // S1 reaches c (10 s a->b, 20 s b->c), S2 reaches b (20 s), S3 nothing, S4 a only.
        let sessions = [
            Self.session("u1", 1, "a@0 b@10 c@30"), Self.session("u2", 2, "a@0 x@5 b@20"), Self.session("u3", 3, "x@0"),
            Self.session("u4", 4, "a@0"),
        ]
        let report = try AdHocFunnelAggregator(funnel: Self.funnel("a,b,c")).report(of: sessions)
        #expect(report.units == 4)
        #expect(report.rows.map(\.count) == [3, 2, 1])
        let twoThirds: Double = 2.0 / 3
        let oneThird: Double = 1.0 / 3
        let fromPrevious: [Double?] = [nil, twoThirds, 0.5]
        let fromStart: [Double?] = [1, twoThirds, oneThird]
        #expect(report.rows.map(\.conversionFromPrevious) == fromPrevious)
        #expect(report.rows.map(\.conversionFromStart) == fromStart)
        // b: medians of 10 and 20 s; c: 20 s from b, 30 s from a.
        #expect(report.rows[0].timeToConvert.count == 0)
        #expect(report.rows[1].timeToConvert.median == 15)
        #expect(report.rows[2].timeToConvert.median == 20)
        #expect(report.rows[2].timeFromStart.median == 30)

        let json = try report.rendered(.json)
        #expect(json.contains("\"conversion_from_previous\""))
        #expect(json.contains("\"time_to_convert\""))
        let decoded = try JSONDecoder.snakeCase.decode(AdHocFunnelReport.self, from: Data(json.utf8))
        #expect(decoded == report)
        #expect(try report.rendered(.csv).hasPrefix("step,count,"))
        #expect(try report.rendered(.text).contains("Ad-hoc funnel a → b → c (ordered, per session"))
        #expect(try report.rendered(.markdown).hasPrefix("## Ad-hoc funnel"))

        let any = try AdHocFunnelAggregator(funnel: Self.funnel("a,b,c", .any)).report(of: sessions)
        #expect(any.rows.map(\.step) == ["any 1 of 3", "any 2 of 3", "any 3 of 3"])
    }

    /// A session file's read hands the aggregator each event's matched steps, never the event:
    /// for every order and unit, with steps matched by name, step id, kind, `$event` and
    /// `KIND:VALUE`, the report equals the one from the decoded sessions.
    @Test func aSessionFileReadCountsAsTheDecodedSessions() throws {
        var random = SessionTraceTests.Random(state: 33)
        let kinds: [EventKind] = [.custom, .stepViewed, .stepCompleted, .featureUsed, .flowCompleted, .sessionStarted]
        let values = ["a", "b", "c", "x", "flow_completed"]
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        var all: [RecordedSession] = []
        for trace in 0..<300 {
            let sessions = (0..<Int(random.next() % 3 + 1)).map { part in
                var time = Int64(random.next() % 1_000) * 1_000_000
                let events = (0..<Int(random.next() % 12)).map { index in
                    // Ties: a third of the events share their predecessor's time.
                    if random.next() % 3 != 0 { time += Int64(random.next() % 600) * 1_000_000 }
                    let kind = kinds[Int(random.next() % UInt64(kinds.count))]
                    let value = values[Int(random.next() % UInt64(values.count))]
                    let sent: [String: JSONValue] =
                        random.next() % 4 == 0 ? ["$event": .string(values[Int(random.next() % 3)])] : [:]
                    return RecordedEvent(
                        kind: kind, stepID: kind.isStepEvent ? value : nil, name: kind.isStepEvent ? nil : value,
                        time: time, seq: index + 1, properties: sent)
                }
                return RecordedSession(
                    sessionID: SessionFileTests.id(trace * 10 + part), userID: "u\(random.next() % 40)", flowID: nil,
                    flowVersion: nil, context: [:], events: events)
            }
            all += sessions
            _ = try file.put(
                SessionFileTests.id(trace), sessions: sessions, events: sessions.reduce(0) { $0 + $1.events.count },
                irregular: false, firstEventID: SessionFileTests.id(0),
                lastEventID: SessionFileTests.id(0, milliseconds: 1_700_000_000_005))
        }
        for steps in ["a,b,c", "a,step_completed:b,flow_completed", "x,a,feature_used:c,b"] {
            for order in AdHocFunnel.Order.allCases {
                for unit in [FunnelOptions.Unit.session, .user] {
                    let funnel = try Self.funnel(steps, order, window: 1_200, unit: unit)
                    let expected = try AdHocFunnelAggregator(funnel: funnel).report(of: all)
                    var merged = AdHocFunnelAggregator(funnel: funnel)
                    for share in try file.shares(3) {
                        var aggregator = AdHocFunnelAggregator(funnel: funnel)
                        _ = try file.read(
                            share, bounds: .init(since: nil, until: nil), people: nil, cohort: nil, into: &aggregator)
                        merged.merge(aggregator)
                    }
                    #expect(expected.units == all.count || unit == .user)
                    #expect(expected.rows.contains { $0.count > 0 && $0.step != expected.rows.first?.step })
                    #expect(try merged.report() == expected, "\(steps) \(order) \(unit)")
                }
            }
        }
    }

    @Test func invalidFunnelsThrow() {
        #expect(throws: AdHocFunnelError.self) { try AdHocFunnel(steps: []) }
        #expect(throws: AdHocFunnelError.self) { try AdHocFunnel(steps: ["a", ""]) }
        #expect(throws: AdHocFunnelError.self) { try AdHocFunnel(steps: ["a"], window: -1) }
        #expect(throws: AdHocFunnelError.self) { try AdHocFunnel(steps: ["a"], window: .infinity) }
        #expect(throws: AdHocFunnelError.self) { try AdHocFunnel(steps: (0..<65).map { "s\($0)" }) }
        do {
            _ = try AdHocFunnel(steps: [])
        } catch let error as AdHocFunnelError {
            #expect(error.code == .noSteps)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

extension JSONDecoder {
    /// Decodes what ``ReportJSON`` encodes.
    fileprivate static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
