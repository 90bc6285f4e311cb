import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel generate`: synthetic recorded sessions as JSONL, with the parameters beside them.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write synthetic onboarding sessions (JSONL) from a behaviour model with known parameters.",
        discussion: """
            Scenarios: \(Scenario.all.map(\.name).joined(separator: ", ")).
            The parameters (behaviour model, seed, counts) are written beside the data as FILE.params.json.
            The same seed gives the same bytes. See docs/EVENT_FORMAT.md.
            """
    )

    @Option(help: "Scenario name.")
    var scenario: String

    @Option(help: "Number of sessions.")
    var sessions: Int = 10_000

    @Option(help: "Seed of the pseudo-random generator.")
    var seed: UInt64 = 1

    @Option(help: "Output JSONL file.")
    var out: String

    @Option(help: "Parameters file (default: FILE with .jsonl replaced by .params.json).")
    var params: String?

    @Option(help: "True effect of the experiment's treatment on its step's drop probability, e.g. --effect=-0.04.")
    var effect: Double?

    @Option(help: "Worker threads (default: all cores); the output is the same for any number.")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Leave out duplicates, late and out-of-order lines and clock skew.")
    var noFaults = false

    func validate() throws {
        guard Scenario.named(scenario) != nil else {
            throw ValidationError(
                "unknown scenario '\(scenario)'; known: \(Scenario.all.map(\.name).joined(separator: ", "))")
        }
        guard sessions >= 0 else { throw ValidationError("--sessions must not be negative") }
    }

    func run() async throws {
        guard var chosen = Scenario.named(scenario) else { throw ValidationError("unknown scenario '\(scenario)'") }
        if let effect {
            guard var experiment = chosen.model.experiment else {
                throw ValidationError("scenario '\(scenario)' has no experiment for --effect")
            }
            experiment.dropDelta = experiment.dropDelta.indices.map { $0 == 0 ? 0 : effect }
            chosen.model.experiment = experiment
        }
        if noFaults { chosen.model.faults = .none }
        let generator = try SyntheticGenerator(scenario: chosen, seed: seed)
        let started = Date()
        let writer = try BufferedFileWriter(path: out)
        let summary = try generator.run(sessions: sessions, workers: workers) { try writer.write($0) }
        try writer.close()
        let paramsPath = params ?? (out.hasSuffix(".jsonl") ? String(out.dropLast(6)) : out) + ".params.json"
        try generator.report(sessions: sessions, summary: summary).jsonData().write(
            to: URL(fileURLWithPath: paramsPath))
        let seconds = Date().timeIntervalSince(started)
        let message =
            "\(summary.sessions) sessions, \(summary.lines) lines → \(out) (parameters: \(paramsPath)) in "
            + String(format: "%.2f s", seconds) + "\n"
        FileHandle.standardError.write(Data(message.utf8))
    }
}
