import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// `funnel experiment --metric funnel:FLOW`: every step over all exposed units (one denominator),
/// on hand-built sessions whose counts are worked out in the comments.
@Suite struct ExperimentFunnelMetricTests {
    /// welcome → extra (only where `pro`) → done.
    static let flow = FlowDefinition(
        id: "study", version: 1, steps: [Step("welcome"), Step("extra", when: "pro"), Step("done")])
    static let t0: Int64 = 1_790_000_000_000_000

    /// A session exposed to `variant` that views the given steps, and completes the flow when asked.
    static func session(_ number: Int, _ variant: String, views: [String], completes: Bool) -> RecordedSession {
        let start = t0 + Int64(number) * 1_000_000
        var events = [
            RecordedEvent(kind: .sessionStarted, flowID: "study", time: start, seq: 0),
            RecordedEvent(
                kind: .experimentExposure, name: "copy", time: start + 1, seq: 1,
                properties: ["variant": .string(variant)]),
        ]
        for (index, step) in views.enumerated() {
            events.append(
                RecordedEvent(
                    kind: .stepViewed, flowID: "study", stepID: step, time: start + Int64(index + 1) * 1_000_000,
                    seq: index + 2))
        }
        if completes {
            events.append(RecordedEvent(kind: .flowCompleted, flowID: "study", time: start + 10_000_000, seq: 20))
        }
        return RecordedSession(
            sessionID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID(),
            userID: "u\(number)", flowID: "study", flowVersion: 1, context: [:], events: events)
    }

    /// control: 4 exposed; all view welcome, 1 extra, 3 done, 2 complete.
    /// treatment: 4 exposed; all view welcome, 2 extra, 4 done, 4 complete.
    static let sessions: [RecordedSession] = [
        session(1, "control", views: ["welcome", "extra", "done"], completes: true),
        session(2, "control", views: ["welcome", "done"], completes: true),
        session(3, "control", views: ["welcome", "done"], completes: false),
        session(4, "control", views: ["welcome"], completes: false),
        session(5, "treatment", views: ["welcome", "extra", "done"], completes: true),
        session(6, "treatment", views: ["welcome", "extra", "done"], completes: true),
        session(7, "treatment", views: ["welcome", "done"], completes: true),
        session(8, "treatment", views: ["welcome", "done"], completes: true),
    ]

    static func report() throws -> ExperimentReport {
        var options = ExperimentOptions(key: "copy")
        options.metrics = [try .init(parsing: "step:done"), try .init(parsing: "funnel:study")]
        options.expand(funnel: flow)
        return try ExperimentAggregator(options: options).report(of: sessions)
    }

    @Test func expandsIntoOneMetricPerStepAfterTheOthers() throws {
        var options = ExperimentOptions(key: "copy")
        options.metrics = [.step("done"), .funnel("study"), .completion]
        options.expand(funnel: Self.flow)
        #expect(
            options.metrics.map(\.description) == [
                "step:done", "reached:welcome", "reached:extra", "reached:done", "completion:study", "completion",
            ])
        #expect(options.funnels.first?.metricIndices == [1, 2, 3, 4])
        #expect(options.funnels.first?.conditional == [false, true, false, false])
        #expect(throws: ExperimentError.self) { try ExperimentOptions.Metric(parsing: "funnel:") }
    }

    @Test func everyStepHasAllExposedUnitsAsItsDenominator() throws {
        let report = try Self.report()
        // 1 + 4 metrics, one comparison each: the correction's family is 5.
        #expect(report.comparisons == 5)
        let reachedDone = try #require(report.metrics.first { $0.metric == .reached("done") })
        #expect(reachedDone.variants.map(\.units) == [4, 4])
        #expect(reachedDone.variants.map(\.conversions) == [3, 4])
        // The pooled two-proportion z-test by hand for 3/4 against 4/4: p = 7/8,
        // z = (1 - 0.75) / sqrt(p(1-p)(1/4 + 1/4)) = 1.069045, two-sided p = erfc(z/√2) = 0.285049.
        let comparison = try #require(reachedDone.comparisons.first)
        #expect(abs((comparison.pValue ?? 0) - 0.285049) < 1e-6)
        let funnel = try #require(report.funnels?.first)
        #expect(funnel.steps == ["welcome", "extra", "done", "completion"])
        let control = try #require(funnel.variants.first { $0.variant == "control" })
        let treatment = try #require(funnel.variants.first { $0.variant == "treatment" })
        #expect(control.reached == [4, 1, 3, 2])
        #expect(treatment.reached == [4, 2, 4, 4])
        #expect(control.rates == [1, 0.25, 0.75, 0.5])
        // Step to step against the last step every unit passes: extra and done against welcome,
        // completion against done (2/3 and 4/4).
        #expect(control.stepToStep == [1, 0.25, 0.75, 2.0 / 3])
        #expect(treatment.stepToStep == [1, 0.5, 1, 1])
        #expect(funnel.note.contains("without p-values"))
    }

    @Test func rendersTheFunnelWithItsNoteAndKeepsOtherReportsUnchanged() throws {
        let text = try Self.report().rendered(.text)
        #expect(text.contains("Funnel study: each step over all exposed units"))
        #expect(text.contains("step to step (no test)"))
        var plain = ExperimentOptions(key: "copy")
        plain.metrics = [.completion]
        let json = try ExperimentAggregator(options: plain).report(of: Self.sessions).rendered(.json)
        #expect(!json.contains("funnels"))
        #expect(try Self.report().html().contains("data-table=\"experiment-funnel-study\""))
    }
}
