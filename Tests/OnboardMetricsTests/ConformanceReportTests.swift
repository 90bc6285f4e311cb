import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

@Suite struct ConformanceReportTests {
    static let flow = FlowDefinition(id: "t", version: 1) {
        Step("a")
        Step("b", when: "healthDataAvailable", skippable: true)
        Step("c")
    }

    /// A session of flow `flowID` whose events come one second apart, from `session_started`.
    static func session(
        _ number: Int, flowID: String = "t", context: [String: JSONValue] = ["healthDataAvailable": true],
        _ moves: [(EventKind, String?)]
    ) -> RecordedSession {
        let start: Int64 = 1_790_000_000_000_000 + Int64(number) * 60_000_000
        let events = ([(EventKind.sessionStarted, String?.none)] + moves).enumerated().map { index, move in
            RecordedEvent(
                kind: move.0, flowID: flowID, flowVersion: 1, stepID: move.1, time: start + Int64(index) * 1_000_000,
                seq: index)
        }
        return RecordedSession(
            sessionID: id(number), userID: "user-\(number)", flowID: flowID, flowVersion: 1, context: context,
            events: events)
    }

    static func id(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
    }

    static func viewAndComplete(_ steps: String...) -> [(EventKind, String?)] {
        steps.flatMap { [(EventKind.stepViewed, $0), (EventKind.stepCompleted, $0)] }
    }

    /// One session per rule, with its expected fitness.
    static let sessions: [(RecordedSession, Double)] = [
        // Every step, in order: fits.
        (session(1, viewAndComplete("a", "b", "c") + [(.flowCompleted, nil)]), 1),
        // The conditional step is not on this path: leaving it out fits.
        (session(2, context: [:], viewAndComplete("a", "c") + [(.flowCompleted, nil)]), 1),
        // Viewing it although its condition is false: 7 judged events, 1 deviation.
        (session(3, context: [:], viewAndComplete("a", "b", "c") + [(.flowCompleted, nil)]), 1 - 1.0 / 8),
        // An unknown step: 3 judged, 1 deviation.
        (session(4, viewAndComplete("a") + [(.stepViewed, "zzz")]), 1 - 1.0 / 4),
        // c before b: out of order; 5 judged, 1 deviation.
        (session(5, viewAndComplete("a", "c") + [(.flowCompleted, nil)]), 1 - 1.0 / 6),
        // b completed without being viewed: 3 judged, 1 deviation.
        (session(6, viewAndComplete("a") + [(.stepCompleted, "b")]), 1 - 1.0 / 4),
    ]

    @Test func countsFitnessAndDeviationsPerRule() throws {
        let other = Self.session(7, flowID: "elsewhere", Self.viewAndComplete("x"))
        let report = try ConformanceAggregator(flow: Self.flow).report(of: Self.sessions.map(\.0) + [other])
        #expect(report.sessions == 6)
        #expect(report.otherFlowSessions == 1)
        #expect(report.perfectlyFitting == 2)
        #expect(report.perfectlyFittingShare == 2.0 / 6)
        #expect(report.deviationCount == 4)
        let rows = report.deviations.map { "\($0.kind.rawValue) \($0.stepID ?? "-") \($0.occurrences) \($0.sessions)" }
        #expect(
            rows == [
                "completedWithoutView b 1 1", "conditionViolated b 1 1", "outOfOrder c 1 1", "unknownStep zzz 1 1",
            ])
        #expect(report.deviations.first?.exampleSessions == [Self.id(6).uuidString.lowercased()])

        // Mean and type-7 quantiles equal those of the raw per-session values.
        let values = Self.sessions.map { $0.1 }
        let mean = try #require(report.fitness.mean)
        #expect(abs(mean - values.reduce(0, +) / 6) < 1e-12)
        for (q, actual) in [(0.1, report.fitness.p10), (0.5, report.fitness.median), (0.9, report.fitness.p90)] {
            let expected = try #require(Quantiles.quantile(values, q))
            #expect(abs(try #require(actual) - expected) < 1e-12, "q = \(q)")
        }
        #expect(report.histogram.map(\.sessions) == [0, 0, 0, 0, 0, 0, 0, 2, 2, 2])
        #expect(report.histogram.first?.lower == 0 && report.histogram.last?.upper == 1)
    }

    @Test func replaysInRecordingOrderNotCorrectedTime() throws {
        // Skew correction adds each event's network delay: the completion of a, emitted together
        // with the view of b, lands after it by corrected time. seq keeps the app's order.
        var recorded = Self.session(30, Self.viewAndComplete("a", "b", "c") + [(.flowCompleted, nil)])
        recorded.events[2].time = recorded.events[3].time + 1
        let report = try ConformanceAggregator(flow: Self.flow).report(of: [recorded])
        #expect(report.perfectlyFitting == 1)
    }

    @Test func fitnessFormula() {
        #expect(ConformanceReport.fitness(judgedEvents: 0, deviations: 0) == 1)
        #expect(ConformanceReport.fitness(judgedEvents: 3, deviations: 1) == 0.75)
        #expect(ConformanceReport.fitness(judgedEvents: 1, deviations: 3) == 0.25)
    }

    @Test func examplesAreTheSmallestSessionIDsWhateverTheOrder() throws {
        let sessions = (10..<16).map { Self.session($0, Self.viewAndComplete("a") + [(.stepViewed, "zzz")]) }
        let forward = try ConformanceAggregator(flow: Self.flow).report(of: sessions)
        let backward = try ConformanceAggregator(flow: Self.flow).report(of: sessions.reversed())
        #expect(forward == backward)
        #expect(forward.deviations.first?.exampleSessions == (10..<13).map { Self.id($0).uuidString.lowercased() })
        #expect(forward.deviations.first?.sessions == 6)
    }

    @Test func timeRangeSelectsSessionsByStart() throws {
        var options = ConformanceOptions()
        options.since = Self.sessions[2].0.events[0].date
        options.until = Self.sessions[4].0.events[0].date
        let report = try ConformanceAggregator(flow: Self.flow, options: options).report(of: Self.sessions.map(\.0))
        #expect(report.sessions == 2)
        #expect(report.perfectlyFitting == 0)
    }

    @Test func emptyReportHasNoStatistics() throws {
        let report = try ConformanceAggregator(flow: Self.flow).report(of: [])
        #expect(report.sessions == 0 && report.fitness.mean == nil && report.fitness.median == nil)
        #expect(report.perfectlyFittingShare == nil)
        #expect(try report.rendered(.text).contains("no deviations"))
    }

    @Test func jsonKeysAreStableSnakeCase() throws {
        let report = try ConformanceAggregator(flow: Self.flow).report(of: Self.sessions.map(\.0))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try report.rendered(.json).utf8)) as? [String: Any])
        #expect(
            Set(json.keys) == [
                "flow_id", "flow_version", "sessions", "perfectly_fitting", "perfectly_fitting_share", "fitness",
                "histogram", "deviation_count", "deviations", "other_flow_sessions",
            ])
        let fitness = try #require(json["fitness"] as? [String: Any])
        #expect(Set(fitness.keys) == ["mean", "p10", "median", "p90"])
        let row = try #require((json["deviations"] as? [[String: Any]])?.first)
        #expect(Set(row.keys) == ["kind", "flow_id", "step_id", "occurrences", "sessions", "example_sessions"])
        #expect(row["kind"] as? String == "completedWithoutView")
        let bucket = try #require((json["histogram"] as? [[String: Any]])?.first)
        #expect(Set(bucket.keys) == ["lower", "upper", "sessions"])
        // The other formats render.
        #expect(try report.rendered(.csv).hasPrefix("kind,flow,step,occurrences,sessions,example sessions"))
        #expect(try report.rendered(.markdown).contains("## Conformance: t v1"))
    }
}
