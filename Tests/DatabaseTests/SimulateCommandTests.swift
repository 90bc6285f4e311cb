import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK

/// `funnel simulate` end to end: generated health-study sessions are ingested into a fresh
/// database and a candidate without the `modules` step is forecast as a user would run it; a
/// candidate with a step nobody has seen is refused with what to pass.
@Suite struct SimulateCommandTests {
    @Test func forecastsACandidateFromTheDatabase() async throws {
        let configuration = try await TestDatabase.migrated("simulate_cli")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("simulate")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await FunnelProcess.generateAndIngest("health-study", sessions: 5_000, seed: 5, into: folder, url: url)

        let baseline = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path
        var candidate = ExampleFlows.healthStudy
        candidate.version = 2
        candidate.steps.removeAll { $0.id == "modules" }
        let candidateFile = folder.appendingPathComponent("candidate.json")
        try JSONEncoder().encode(candidate).write(to: candidateFile)

        let run = try await FunnelProcess.run([
            "simulate", "--flow", candidateFile.path, "--baseline", baseline, "--draws", "300", "--format", "json",
            "--database-url", url, "--quiet",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(report["candidate_flow_version"] as? Int == 2)
        #expect(report["removed_steps"] as? [String] == ["modules"])
        #expect(report["draws"] as? Int == 300)
        let summary = try #require(report["data"] as? [String: Any])
        #expect((summary["sessions"] as? Int ?? 0) > 4_000)
        let backTest = try #require(report["back_test"] as? [String: Any])
        #expect(backTest["within_interval"] as? Bool == true)
        // Removing a step that loses sessions can only raise completion.
        let delta = try #require(report["completion_delta"] as? [String: Any])
        let interval = try #require(delta["interval"] as? [String: Double])
        #expect(try #require(interval["lower"]) > 0)
        #expect((report["sample_size_per_arm"] as? Int ?? 0) > 0)
        #expect((report["assumptions"] as? [String] ?? []).count >= 4)

        var withTutorial = ExampleFlows.healthStudy
        withTutorial.version = 3
        withTutorial.steps.insert(Step("tutorial"), at: 1)
        let tutorialFile = folder.appendingPathComponent("tutorial.json")
        try JSONEncoder().encode(withTutorial).write(to: tutorialFile)
        let refused = try await FunnelProcess.run([
            "simulate", "--flow", tutorialFile.path, "--baseline", baseline, "--database-url", url, "--quiet",
        ])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--assume tutorial=RATE"))
        let assumed = try await FunnelProcess.run([
            "simulate", "--flow", tutorialFile.path, "--baseline", baseline, "--assume", "tutorial=0.95",
            "--draws", "100", "--format", "markdown", "--database-url", url, "--quiet",
        ])
        #expect(assumed.status == 0, "\(assumed.errors)")
        #expect(assumed.output.contains("| tutorial | assumed |"))
    }
}
