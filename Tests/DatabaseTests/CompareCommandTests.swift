import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `funnel compare` end to end on the real PostgreSQL: three generated releases of the health
/// study are recorded — 2.3, 2.4 whose consent step drops 15 points more people, and 2.5 that
/// behaves as 2.3 — and the gate runs as CI would run it.
@Suite struct CompareCommandTests {
    static func release(version: String, worse: Double, seed: UInt64) throws -> SyntheticGenerator {
        var scenario = Scenario.healthStudy
        scenario.model.context = scenario.model.context.map {
            $0.name == "appVersion"
                ? BehaviourModel.Attribute("appVersion", values: [.string(version)], weights: [1]) : $0
        }
        for index in scenario.model.steps.indices where scenario.model.steps[index].step == "consent" {
            scenario.model.steps[index].drop += worse
        }
        return try SyntheticGenerator(scenario: scenario, seed: seed)
    }

    @Test func theGateFailsAWorsenedReleaseAndPassesAnUnchangedOne() async throws {
        let configuration = try await TestDatabase.migrated("compare_cli")
        let url = TestDatabase.url(of: configuration)
        var events: [Event] = []
        for (version, worse, seed) in [("2.3", 0.0, UInt64(31)), ("2.4", 0.15, 32), ("2.5", 0.0, 33)] {
            let generator = try Self.release(version: version, worse: worse, seed: seed)
            for index in 0..<1_500 { events += generator.session(index).events }
        }
        let batch = events
        try await TestDatabase.withConnection(configuration) { connection in
            _ = try EventStore().write(batch, on: connection, receivedAt: Date())
        }
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path
        let common = ["compare", "--flow", flow, "--database-url", url, "--quiet", "--property", "appVersion"]

        let worse = try await FunnelProcess.run(
            common + ["--a", "2.3", "--b", "2.4", "--fail-on-regression", "5", "--format", "json"])
        #expect(worse.status == 3, "\(worse.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(worse.output.utf8)) as? [String: Any])
        #expect(report["passed"] as? Bool == false)
        #expect((report["regressions"] as? [String])?.contains("account") == true)
        #expect(report["regression_threshold"] as? Double == 0.05)
        let rows = try #require(report["rows"] as? [[String: Any]])
        let account = try #require(rows.first { $0["step"] as? String == "account" })
        #expect(try #require(account["difference"] as? Double) < -0.1)
        #expect(account["regression"] as? Bool == true)
        #expect(try #require(account["adjusted_p_value"] as? Double) < 0.05)
        #expect((report["a"] as? [String: Any])?["started"] as? Int == 1_500)

        let same = try await FunnelProcess.run(common + ["--a", "2.3", "--b", "2.5", "--fail-on-regression", "5"])
        #expect(same.status == 0, "\(same.output)")
        #expect(same.output.contains("PASS"))

        // Date ranges: the generated sessions span 28 days from 2026-01-05.
        let halves = try await FunnelProcess.run([
            "compare", "--flow", flow, "--database-url", url, "--quiet", "--a-since", "2026-01-05", "--a-until",
            "2026-01-19", "--b-since", "2026-01-19", "--format", "markdown",
        ])
        #expect(halves.status == 0)
        #expect(halves.output.hasPrefix("## Compare health-study v1"))
        let overlapping = try await FunnelProcess.run([
            "compare", "--flow", flow, "--database-url", url, "--a-since", "2026-01-05", "--a-until", "2026-01-20",
            "--b-since", "2026-01-19",
        ])
        #expect(overlapping.status != 0)
        #expect(overlapping.errors.contains("overlap"))
    }
}
