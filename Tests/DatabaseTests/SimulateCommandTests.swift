import Foundation
import Testing

@testable import OnboardMetrics

/// `funnel simulate` end to end: generated health-study sessions are ingested into a fresh
/// database and a candidate without the `modules` step is forecast as a user would run it; a
/// candidate with a step nobody has seen is refused with what to pass.
@Suite struct SimulateCommandTests {
    @Test func forecastsACandidateFromTheDatabase() async throws {
        let configuration = try await TestDatabase.migrated("simulate_cli")
        var components = try #require(URLComponents(string: try TestDatabase.adminURL()))
        components.path = "/" + (try #require(configuration.overrides["dbname"]))
        let url = try #require(components.string)
        let folder = try TestDatabase.temporaryFolder("simulate")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("health.jsonl").path
        #expect(
            try Self.run([
                "generate", "--scenario", "health-study", "--sessions", "5000", "--seed", "5", "--out", data,
                "--workers", "1",
            ]).status == 0)
        #expect(try Self.run(["ingest", data, "--database-url", url, "--quiet"]).status == 0)

        let baseline = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path
        var candidate = ExampleFlows.healthStudy
        candidate.version = 2
        candidate.steps.removeAll { $0.id == "modules" }
        let candidateFile = folder.appendingPathComponent("candidate.json")
        try JSONEncoder().encode(candidate).write(to: candidateFile)

        let run = try Self.run([
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
        let refused = try Self.run([
            "simulate", "--flow", tutorialFile.path, "--baseline", baseline, "--database-url", url, "--quiet",
        ])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--assume tutorial=RATE"))
        let assumed = try Self.run([
            "simulate", "--flow", tutorialFile.path, "--baseline", baseline, "--assume", "tutorial=0.95",
            "--draws", "100", "--format", "markdown", "--database-url", url, "--quiet",
        ])
        #expect(assumed.status == 0, "\(assumed.errors)")
        #expect(assumed.output.contains("| tutorial | assumed |"))
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestDatabase.funnelExecutable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
