import Foundation

extension FunnelProcess {
    /// A `funnel generate` or `funnel ingest` run that did not succeed, with what it printed.
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `funnel generate` with one worker (the same file on any machine) into
    /// `folder/<scenario>.jsonl`; `arguments` adds options such as `--effect=-0.10`.
    /// - Returns: the file's path.
    static func generate(
        _ scenario: String, sessions: Int, seed: Int, arguments: [String] = [], into folder: URL
    ) async throws -> String {
        let path = folder.appendingPathComponent("\(scenario).jsonl").path
        let run = try await FunnelProcess.run(
            [
                "generate", "--scenario", scenario, "--sessions", String(sessions), "--seed", String(seed), "--out",
                path, "--workers", "1", "--quiet",
            ] + arguments)
        guard run.status == 0 else {
            throw Failed(description: "funnel generate exited with \(run.status): \(run.errors)")
        }
        return path
    }

    /// Generates like ``generate(_:sessions:seed:arguments:into:)``, then ingests the file into the
    /// database at `url`.
    /// - Returns: the file's path.
    @discardableResult
    static func generateAndIngest(
        _ scenario: String, sessions: Int, seed: Int, arguments: [String] = [], ingestArguments: [String] = [],
        into folder: URL, url: String
    ) async throws -> String {
        let path = try await generate(scenario, sessions: sessions, seed: seed, arguments: arguments, into: folder)
        let run = try await FunnelProcess.run(["ingest", path, "--database-url", url, "--quiet"] + ingestArguments)
        guard run.status == 0 else {
            throw Failed(description: "funnel ingest exited with \(run.status): \(run.errors)")
        }
        return path
    }
}
