import Foundation
import Testing

/// `funnel correlate` end to end: generated health-study sessions are ingested into a fresh
/// database, then the command runs as a user would run it; its counts are checked against
/// `funnel report` for the same options, and a parallel read against a single one.
@Suite struct CorrelateCommandTests {
    @Test func correlateOnGeneratedHealthStudyData() async throws {
        let configuration = try await TestDatabase.migrated("correlate_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("correlate")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest("health-study", sessions: 3_000, seed: 5, into: folder, url: url)
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path
        // A fixed end, so dropped versus in progress does not depend on the clock.
        let common = ["--flow", flow, "--until", "2100-01-01", "--database-url", url, "--quiet", "--format", "json"]

        let run = try await FunnelProcess.run(["correlate", "--top", "0"] + common)
        #expect(run.status == 0, "\(run.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(report["flow_id"] as? String == "health-study")
        #expect(report["correction"] as? String == "bh")
        let group = try #require((report["groups"] as? [[String: Any]])?.first)
        let successes = try #require(group["successes"] as? Int)
        let failures = try #require(group["failures"] as? Int)
        let rows = (group["positive"] as? [[String: Any]] ?? []) + (group["negative"] as? [[String: Any]] ?? [])
        #expect(!rows.isEmpty)
        #expect(rows.count <= (group["candidates_tested"] as? Int ?? 0))
        for row in rows {
            let s = try #require(row["successes"] as? Int)
            let f = try #require(row["failures"] as? Int)
            #expect(s <= successes && f <= failures)
            let p = try #require(row["p_value"] as? Double)
            let adjusted = try #require(row["adjusted_p_value"] as? Double)
            #expect(p >= 0 && p <= adjusted && adjusted <= 1)
            let oddsRatio = try #require(row["odds_ratio"] as? Double)
            let expected =
                Double((s + 1) * (failures - f + 1)) / Double((successes - s + 1) * (f + 1))
            #expect(abs(oddsRatio - expected) < 1e-9 * expected)
            #expect(!(row["name"] as? String ?? "").hasPrefix("step_"))
        }
        // Every unit has exactly one platform: its property rows add up to S and F.
        let platforms = rows.filter { ($0["name"] as? String ?? "").hasPrefix("platform=") }
        #expect(platforms.compactMap { $0["successes"] as? Int }.reduce(0, +) == successes)
        #expect(platforms.compactMap { $0["failures"] as? Int }.reduce(0, +) == failures)
        // The scenario drops web users more at the account step: web goes with failure.
        let web = try #require(platforms.first { $0["name"] as? String == "platform=web" })
        #expect(try #require(web["odds_ratio"] as? Double) < 1)

        // S + F = completed + dropped of the funnel report with the same options.
        let funnel = try await FunnelProcess.run(["report"] + common)
        #expect(funnel.status == 0)
        let funnelReport = try #require(
            try JSONSerialization.jsonObject(with: Data(funnel.output.utf8)) as? [String: Any])
        let totals = try #require((funnelReport["groups"] as? [[String: Any]])?.first?["totals"] as? [String: Any])
        #expect(successes == totals["completed"] as? Int)
        #expect(failures == totals["dropped"] as? Int)

        // Two connections read shares of the sessions and merge: the same report.
        let parallel = try await FunnelProcess.run(["correlate", "--top", "0", "--read-connections", "2"] + common)
        #expect(parallel.status == 0)
        #expect(parallel.output == run.output)

        // Per user, by a step, with Holm: the options reach the report, and units are counted once.
        let step = try await FunnelProcess.run(
            ["correlate", "--step", "consent", "--per", "user", "--correction", "holm", "--by", "platform"] + common)
        #expect(step.status == 0, "\(step.errors)")
        let stepReport = try #require(
            try JSONSerialization.jsonObject(with: Data(step.output.utf8)) as? [String: Any])
        #expect(stepReport["step"] as? String == "consent")
        #expect(stepReport["unit"] as? String == "user")
        #expect(stepReport["correction"] as? String == "holm")
        let groups = try #require(stepReport["groups"] as? [[String: Any]])
        #expect(groups.compactMap { $0["breakdown"] as? String } == ["android", "ios", "web"])

        let unknown = try await FunnelProcess.run(["correlate", "--step", "nope"] + common)
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("nope"))
    }
}
