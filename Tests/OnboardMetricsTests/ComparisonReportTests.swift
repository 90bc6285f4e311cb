import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

/// `funnel compare`'s report: hand-built cohorts with known differences (expected figures from
/// the textbook formulas, computed with SciPy: z-test p = 2·sf(|z|), Mann-Whitney by
/// `mannwhitneyu(method="asymptotic")`), and the regression gate on generated releases: one that
/// worsens a step by a known amount fails it, unchanged releases pass it at no more than the
/// stated false-positive rate over many seeds.
@Suite struct ComparisonReportTests {
    typealias Fixture = FunnelReportTests

    /// A session that views welcome; when `reaches`, views consent (skipping it or completing it
    /// after `consentSeconds`), then done, and completes; otherwise drops at welcome.
    static func session(_ number: Int, version: String, reaches: Bool, skips: Bool, consentSeconds: Double)
        -> RecordedSession
    {
        var moves: [(EventKind, String?, Double)] = [(.stepViewed, "welcome", 1)]
        if reaches {
            moves += [
                (.stepCompleted, "welcome", 2), (.stepViewed, "consent", 3),
                (skips ? .stepSkipped : .stepCompleted, "consent", 3 + consentSeconds),
                (.stepViewed, "done", 10), (.stepCompleted, "done", 11), (.flowCompleted, nil, 11),
            ]
        }
        return Fixture.session(number, context: ["appVersion": .string(version)], moves)
    }

    /// A: 100 sessions, 80 reach consent (40 skip it), 2 s on it. B: 100 sessions, 60 reach
    /// consent (45 skip it), 5 s on it. The others drop at welcome (the report's end is 30 days on).
    static var cohorts: [RecordedSession] {
        var sessions: [RecordedSession] = []
        for index in 0..<100 {
            sessions.append(
                session(index, version: "2.3", reaches: index < 80, skips: index < 40, consentSeconds: 2))
            sessions.append(
                session(1_000 + index, version: "2.4", reaches: index < 60, skips: index < 45, consentSeconds: 5))
        }
        return sessions
    }

    static func options(threshold: Double?) -> ComparisonOptions {
        var options = ComparisonOptions(
            a: .property("appVersion", value: "2.3"), b: .property("appVersion", value: "2.4"))
        options.funnel = Fixture.options
        options.regressionThreshold = threshold
        return options
    }

    static func row(_ report: ComparisonReport, _ step: String) throws -> ComparisonReport.Row {
        try #require(report.rows.first { $0.step == step })
    }

    @Test func handBuiltCohortsGiveTheKnownDifferences() throws {
        let report = try ComparisonAggregator(flow: Fixture.flow, options: Self.options(threshold: 0.10), now: Date())
            .report(of: Self.cohorts)
        #expect(report.a.started == 100)
        #expect(report.b.started == 100)
        let consent = try Self.row(report, "consent")
        #expect(consent.a.entered == 100)
        #expect(consent.a.converted == 80)
        #expect(consent.b.converted == 60)
        #expect(abs((consent.difference ?? 0) + 0.20) < 1e-12)
        // z = (0.6 − 0.8) / √(0.7·0.3·(1/100 + 1/100)) = −3.08607; p = 0.0020282 (SciPy).
        #expect(abs((consent.z ?? 0) + 3.0860669992418397) < 1e-9)
        #expect(abs((consent.pValue ?? 0) - 0.002028231148452069) < 1e-9)
        // Tested rows: welcome (100 % in both, p = 1), consent, done (100 % of those who reached
        // it, p = 1), completion (80 % vs 60 %, same p); health applies to nobody. Holm: 4 × p.
        #expect(report.comparisons == 4)
        #expect(abs((consent.adjustedPValue ?? 0) - 4 * 0.002028231148452069) < 1e-9)
        let completion = try Self.row(report, ComparisonReport.completionRow)
        #expect(abs((completion.adjustedPValue ?? 0) - 4 * 0.002028231148452069) < 1e-9)
        #expect(try Self.row(report, "health").pValue == nil)
        // Newcombe's interval of −0.20 lies below 0.
        #expect((consent.differenceInterval?.upper ?? 1) < 0)
        // Skip rate 40/80 → 45/60: +25 points, z = 2.9973, p = 0.0027236.
        #expect(abs((consent.skipRateDifference ?? 0) - 0.25) < 1e-12)
        #expect(abs((consent.skipRatePValue ?? 0) - 0.0027236017219218417) < 1e-9)
        // Time on consent 2 s → 5 s: median +3 s; Mann-Whitney U p = 4.5348e-32 (SciPy).
        #expect(consent.timeOnStepMedianDifference == 3)
        #expect(abs((consent.timeOnStepPValue ?? 0) / 4.5348237127295134e-32 - 1) < 1e-6)
        // The gate at 10 points: consent and completion fell 20 points, significantly.
        #expect(report.regressions == ["consent", ComparisonReport.completionRow])
        #expect(report.passed == false)
        #expect(try report.rendered(.text).contains("FAIL: consent, (completion) fell by more than 10.0 points"))
        // At 25 points nothing fell that far: the gate passes.
        let lenient = try ComparisonAggregator(flow: Fixture.flow, options: Self.options(threshold: 0.25), now: Date())
            .report(of: Self.cohorts)
        #expect(lenient.regressions.isEmpty)
        #expect(lenient.passed == true)
        // 100 sessions cannot show a 10-point drop from 80 % at alpha 0.05/4 with 80 % power.
        #expect(consent.underpowered)
        #expect(report.warnings.contains { $0.hasPrefix("consent: 100 sessions in the smaller cohort") })
        // --correction bh: Benjamini–Hochberg's step-up by its formula over the same raw p-values,
        // adjusted(i) = min over j >= i (in rank order) of m * p(j) / j, capped at 1.
        var bhOptions = Self.options(threshold: 0.10)
        bhOptions.correction = .bh
        let bh = try ComparisonAggregator(flow: Fixture.flow, options: bhOptions, now: Date()).report(of: Self.cohorts)
        let raw = bh.rows.compactMap(\.pValue)
        let sorted = raw.sorted()
        let m = Double(sorted.count)
        for row in bh.rows {
            guard let p = row.pValue, let rank = sorted.firstIndex(of: p) else { continue }
            let expected = min(1, (rank..<sorted.count).map { m * sorted[$0] / Double($0 + 1) }.min() ?? 1)
            #expect(abs((row.adjustedPValue ?? -1) - expected) < 1e-12, "\(row.step)")
        }
        #expect(bh.correction == .bh)
        #expect(try bh.rendered(.text).contains("BH p"))
    }

    @Test func everyFormatRenders() throws {
        let report = try ComparisonAggregator(flow: Fixture.flow, options: Self.options(threshold: 0.10), now: Date())
            .report(of: Self.cohorts)
        let json = try report.rendered(.json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["regressions"] as? [String] == ["consent", "(completion)"])
        #expect(object["passed"] as? Bool == false)
        #expect((object["a"] as? [String: Any])?["cohort"] as? String == "appVersion = 2.3")
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.first?["adjusted_p_value"] != nil)
        #expect(try report.rendered(.csv).hasPrefix("step,A entered,"))
        #expect(try report.rendered(.markdown).hasPrefix("## Compare study v1"))
        let html = report.html()
        #expect(html.contains("data-table=\"comparison\""))
        #expect(html.contains("Mann-Whitney"))
    }

    // MARK: - The gate on generated releases

    /// The health-study scenario with every session on `version`, and consent's drop raised by `worse`.
    static func release(version: String, worse: Double, seed: UInt64) throws -> SyntheticGenerator {
        var scenario = Scenario.healthStudy
        scenario.model.context = scenario.model.context.map {
            $0.name == "appVersion"
                ? BehaviourModel.Attribute("appVersion", values: [.string(version)], weights: [1]) : $0
        }
        scenario.model.experiment = nil
        for index in scenario.model.steps.indices where scenario.model.steps[index].step == "consent" {
            scenario.model.steps[index].drop += worse
        }
        return try SyntheticGenerator(scenario: scenario, seed: seed)
    }

    static func compare(sessions count: Int, worse: Double, seed: UInt64, threshold: Double) throws -> ComparisonReport
    {
        let old = try release(version: "2.3", worse: 0, seed: seed)
        let new = try release(version: "2.4", worse: worse, seed: seed &+ 1_000_003)
        // Session by session: grouping each generated session alone avoids sorting all events.
        var sessions: [RecordedSession] = []
        for index in 0..<count {
            sessions += RecordedSession.group(old.session(index).events)
            sessions += RecordedSession.group(new.session(index).events)
        }
        var options = ComparisonOptions(
            a: .property("appVersion", value: "2.3"), b: .property("appVersion", value: "2.4"))
        options.regressionThreshold = threshold
        return try ComparisonAggregator(
            flow: ExampleFlows.healthStudy, options: options, now: Date(timeIntervalSince1970: 1_800_000_000)
        ).report(of: sessions)
    }

    /// A release that raises consent's drop probability by 0.15 lowers the conversion into the
    /// next step (account) by about 15 points: a 5-point gate fails on it, for every seed tried.
    @Test func aWorsenedReleaseFailsTheGate() throws {
        for seed in UInt64(1)...2 {
            let report = try Self.compare(sessions: 1_500, worse: 0.15, seed: seed, threshold: 0.05)
            #expect(report.passed == false, "seed \(seed)")
            #expect(report.regressions.contains("account"), "seed \(seed): \(report.regressions)")
            let account = try Self.row(report, "account")
            #expect((account.difference ?? 0) < -0.10, "seed \(seed)")
            // Only the worsened step and what follows from it (completion) may be flagged.
            #expect(Set(report.regressions).isSubset(of: ["account", ComparisonReport.completionRow]))
        }
    }

    /// Two releases with the same behaviour: the 2-point gate must pass. Holm keeps the chance
    /// of any false alarm per comparison at most alpha = 5 %, so over 20 seeds the expected count
    /// is at most 1; more than 4 (probability 0.003 at 5 %) fails the test. Bounded in time:
    /// 20 × 800 generated sessions (the false-alarm rate does not depend on the cohorts' size).
    @Test func unchangedReleasesPassTheGateAtTheStatedRate() throws {
        var alarms = 0
        for seed in UInt64(100)..<120 {
            let report = try Self.compare(sessions: 400, worse: 0, seed: seed, threshold: 0.02)
            #expect(report.passed != nil)
            if report.passed == false { alarms += 1 }
        }
        #expect(alarms <= 4, "\(alarms) false alarms in 20 unchanged releases")
    }
}
