import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `funnel experiment` end to end: generated health-study sessions with a known true effect of the
/// `consent-copy` experiment are ingested into a fresh database, then the command runs as a user
/// would run it. Also the experiment store's round trip.
@Suite struct ExperimentCommandTests {
    @Test func experimentRecoversTheGeneratorsKnownEffect() async throws {
        let configuration = try await TestDatabase.migrated("experiment_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("experiment")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The treatment lowers the drop probability at consent by 0.10: short-copy must complete
        // consent more often than control.
        try await FunnelProcess.generateAndIngest(
            "health-study", sessions: 6_000, seed: 11, arguments: ["--effect=-0.10"], into: folder, url: url)

        let run = try await FunnelProcess.run([
            "experiment", "consent-copy", "--metric", "step:consent", "--metric", "completion", "--format", "json",
            "--database-url", url, "--quiet",
        ])
        #expect(run.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(report["key"] as? String == "consent-copy")
        #expect(report["control"] as? String == "control")
        #expect(report["variants"] as? [String] == ["control", "short-copy"])
        #expect(report["comparisons"] as? Int == 2)
        let units = try #require(report["units"] as? Int)
        #expect(units > 1000)
        let ratio = try #require(report["sample_ratio"] as? [String: Any])
        #expect((ratio["observed"] as? [Int])?.reduce(0, +) == units)
        #expect(ratio["threshold"] as? Double == 0.001)
        #expect(ratio["mismatch"] is Bool)
        let metrics = try #require(report["metrics"] as? [[String: Any]])
        #expect(metrics.compactMap { $0["metric"] as? String } == ["step:consent", "completion"])
        let step = try #require(metrics.first)
        let rows = try #require(step["variants"] as? [[String: Any]])
        #expect(rows.compactMap { $0["variant"] as? String } == ["control", "short-copy"])
        for row in rows {
            #expect((row["conversions"] as? Int ?? -1) <= (row["units"] as? Int ?? -2))
            #expect(row["interval"] is [String: Double])
        }
        let comparison = try #require((step["comparisons"] as? [[String: Any]])?.first)
        #expect(comparison["variant"] as? String == "short-copy")
        // The sign of the known effect is recovered, and confidently.
        let difference = try #require(comparison["absolute_difference"] as? Double)
        #expect(difference > 0)
        let interval = try #require(comparison["absolute_interval"] as? [String: Double])
        #expect(try #require(interval["lower"]) > 0)
        #expect(try #require(comparison["chance_to_beat_control"] as? Double) > 0.95)
        let p = try #require(comparison["p_value"] as? Double)
        let adjusted = try #require(comparison["adjusted_p_value"] as? Double)
        #expect(adjusted >= p && adjusted < 0.05)
        #expect(comparison["significant"] as? Bool == true)
        for key in [
            "relative_difference", "relative_interval", "expected_loss", "expected_loss_of_control",
            "required_units_per_arm", "additional_units_per_arm", "z",
        ] {
            #expect(comparison[key] != nil, "missing \(key)")
        }

        // Text, CSV and Markdown render; a bad metric is refused.
        for format in ["text", "csv", "markdown"] {
            let rendered = try await FunnelProcess.run([
                "experiment", "consent-copy", "--metric", "step:consent", "--engine", "bayesian", "--format", format,
                "--database-url", url, "--quiet",
            ])
            #expect(rendered.status == 0)
            #expect(rendered.output.contains("short-copy"))
        }
        let bad = try await FunnelProcess.run([
            "experiment", "consent-copy", "--metric", "steps:x", "--database-url", url,
        ])
        #expect(bad.status != 0)
    }

    /// `--sequential`: always-valid intervals (wider than the fixed-horizon ones), p-values that
    /// Holm then adjusts, and the method, its tuning and "any" number of looks in the report.
    @Test func sequentialReportsAlwaysValidResults() async throws {
        let configuration = try await TestDatabase.migrated("experiment_sequential_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("experiment-sequential")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest(
            "health-study", sessions: 6_000, seed: 12, arguments: ["--effect=-0.10"], into: folder, url: url)

        let run = try await FunnelProcess.run([
            "experiment", "consent-copy", "--metric", "step:consent", "--sequential", "--tuning", "4000", "--format",
            "json", "--database-url", url, "--quiet",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let sequential = try #require(report["sequential"] as? [String: Any])
        #expect(sequential["looks"] as? String == "any")
        #expect(sequential["tuning"] as? Double == 4000)
        #expect((sequential["method"] as? String)?.contains("mixture SPRT") == true)
        // ρ = √((−2 ln 0.05 + ln(−2 ln 0.05 + 1)) / 4000), by hand: √(7.93615 / 4000) = 0.0445425.
        #expect(abs((sequential["rho"] as? Double ?? 0) - 0.0445425) < 1e-6)
        let metric = try #require((report["metrics"] as? [[String: Any]])?.first)
        let comparison = try #require((metric["comparisons"] as? [[String: Any]])?.first)
        let always = try #require(comparison["sequential_interval"] as? [String: Double])
        let fixed = try #require(comparison["absolute_interval"] as? [String: Double])
        #expect(try #require(always["lower"]) < (fixed["lower"] ?? 0))
        #expect(try #require(always["upper"]) > (fixed["upper"] ?? 0))
        let p = try #require(comparison["sequential_p_value"] as? Double)
        #expect(p >= (comparison["p_value"] as? Double ?? 1))
        // One comparison: Holm leaves the always-valid p-value as it is.
        #expect(comparison["adjusted_p_value"] as? Double == p)
        // The treatment's known effect is large enough to show even sequentially.
        #expect(try #require(always["lower"]) > 0)
        #expect(comparison["significant"] as? Bool == true)

        let text = try await FunnelProcess.run([
            "experiment", "consent-copy", "--metric", "step:consent", "--sequential", "--database-url", url, "--quiet",
        ])
        #expect(text.output.contains("always-valid 95% CI"))
        #expect(text.output.contains("looks tolerated: any"))
        #expect(text.output.contains("N* = 5000"))
    }

    @Test func storeRoundTripAndStickyAssignments() async throws {
        let configuration = try await TestDatabase.migrated("experiment_store")
        let experiment = try ExperimentDefinition(
            key: "consent-copy", variants: ["control", "short-copy"], weights: [0.4, 0.6], coverage: 0.9)
        try await TestDatabase.withConnection(configuration) { connection in
            let store = ExperimentStore()
            try store.save(experiment, on: connection)
            #expect(try store.load(key: "consent-copy", on: connection) == experiment)
            #expect(try store.load(key: "missing", on: connection) == nil)
            let first = try store.assign("ユーザー42", in: experiment, on: connection)
            #expect(first == experiment.assign("ユーザー42").variant)
            // A changed definition does not move a unit already recorded.
            var changed = experiment
            changed.variants[0].weight = 0.99
            changed.variants[1].weight = 0.01
            try store.save(changed, on: connection)
            if let first {
                #expect(try store.assign("ユーザー42", in: changed, on: connection) == first)
                #expect(try store.assignments(key: "consent-copy", on: connection) == ["ユーザー42": first])
            }
            #expect(try store.loadAll(on: connection).map(\.key) == ["consent-copy"])
        }
    }
}
