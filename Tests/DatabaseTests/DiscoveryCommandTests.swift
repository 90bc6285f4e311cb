import Foundation
import OnboardMetrics
import Testing

@testable import OnboardMetricsSDK

/// `funnel discovery` and `funnel conformance` end to end: generated spotlight sessions are
/// ingested into a fresh database, then both commands run as a user would run them.
@Suite struct DiscoveryCommandTests {
    @Test func discoveryAndConformanceOnGeneratedSpotlightData() async throws {
        let configuration = try await TestDatabase.migrated("discovery_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("discovery")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest("spotlight", sessions: 3_000, seed: 7, into: folder, url: url)

        let discovery = try await FunnelProcess.run(["discovery", "--database-url", url, "--format", "json", "--quiet"])
        #expect(discovery.status == 0)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(discovery.output.utf8)) as? [String: Any])
        #expect(report["unit"] as? String == "session")
        #expect(report["window_seconds"] as? Double == 604_800)
        let rows = try #require(report["highlights"] as? [[String: Any]])
        #expect(rows.compactMap { $0["highlight"] as? String } == ["export-button", "share-button"])
        let share = try #require(rows.first { $0["highlight"] as? String == "share-button" })
        #expect(share["feature"] as? String == "share")
        let shown = try #require(share["shown"] as? Int)
        let knew = try #require(share["already_knew"] as? Int)
        #expect(share["eligible"] as? Int == shown - knew)
        // The scenario's known parameters: dismiss reasons 0.35/0.45/0.05/0.15 with use-after
        // probabilities 0.9/0.25/0.2/0.2 give 0.4675 (the delay, median 20 h, is almost always
        // inside 7 days); already knew 0.05; organic use 0.12 (the baseline also holds the
        // sessions that already knew, so about 0.05 + 0.95 × 0.12 = 0.164).
        let interval = try #require(share["interval"] as? [String: Double])
        #expect(try #require(interval["lower"]) < 0.4675 && 0.4675 < (try #require(interval["upper"])))
        #expect(abs(Double(knew) / Double(shown) - 0.05) < 0.02)
        let baseline = try #require(share["baseline"] as? [String: Any])
        #expect(baseline["flows"] as? [String] == ["spotlight-share"])
        let baselineRate = try #require(baseline["rate"] as? Double)
        #expect(baselineRate > 0.12 && baselineRate < 0.21)
        let uplift = try #require(share["uplift_interval"] as? [String: Double])
        #expect(try #require(uplift["lower"]) > 0.2)
        let reasons = try #require(share["dismissed"] as? [[String: Any]])
        #expect(reasons.compactMap { $0["units"] as? Int }.reduce(0, +) == shown)

        // One highlight, per user, another window: the options reach the report.
        let filtered = try await FunnelProcess.run([
            "discovery", "--highlight", "export-button", "--per", "user", "--window", "36h", "--format", "json",
            "--database-url", url, "--quiet",
        ])
        #expect(filtered.status == 0)
        let perUser = try #require(
            try JSONSerialization.jsonObject(with: Data(filtered.output.utf8)) as? [String: Any])
        #expect(perUser["unit"] as? String == "user")
        #expect(perUser["window_seconds"] as? Double == 129_600)
        #expect(
            (perUser["highlights"] as? [[String: Any]])?.compactMap { $0["highlight"] as? String } == ["export-button"])

        // Generated sessions are legal navigator moves: replayed in recording order, all fit.
        let flow = TestDatabase.packageRoot.appendingPathComponent("examples/flows/spotlight-share.json").path
        let conformance = try await FunnelProcess.run([
            "conformance", "--flow", flow, "--database-url", url, "--format", "json", "--quiet",
        ])
        #expect(conformance.status == 0)
        let fit = try #require(try JSONSerialization.jsonObject(with: Data(conformance.output.utf8)) as? [String: Any])
        let sessions = try #require(fit["sessions"] as? Int)
        #expect(sessions >= 3000)
        #expect(fit["perfectly_fitting"] as? Int == sessions)
        #expect(fit["deviation_count"] as? Int == 0)

        let bad = try await FunnelProcess.run(["discovery", "--window", "7x", "--database-url", url, "--quiet"])
        #expect(bad.status != 0)
    }
}
