import ArgumentParser
import Foundation
import OnboardMetrics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `funnel generate`: synthetic recorded sessions as JSONL, with the parameters beside them, or
/// recorded straight into the database through the event recorder (`--database`).
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write synthetic onboarding sessions (JSONL) from a behaviour model with known parameters.",
        discussion: """
            The parameters (behaviour model, seed, counts) are written beside the data as FILE.params.json.
            The same seed gives the same bytes. See docs/EVENT_FORMAT.md.

            With --database the events (faults included: duplicates are dropped by the database) are \
            recorded through the event recorder into the database instead of a file; the migrations run \
            first, the scenario's flow definitions are stored in the flows table, and the parameters are \
            written only to --params PATH. Running the same seed again adds nothing.
            """
    )

    // The names are listed here, not in the discussion: every run builds every command's
    // configuration (the scenarios too, 0.6 ms), an option's help only when it parses this command.
    @Option(help: "Scenario name: \(Scenario.all.map(\.name).joined(separator: ", ")).")
    var scenario: String

    @Option(help: "Number of sessions.")
    var sessions: Int = 10_000

    @Option(help: "Seed of the pseudo-random generator.")
    var seed: UInt64 = 1

    @Option(help: "Output JSONL file (required unless --database).")
    var out: String?

    @Option(
        help: "Parameters file (default: FILE with .jsonl replaced by .params.json; with --database, only when given).")
    var params: String?

    @Flag(
        name: .customLong("database"),
        help: "Record the events into the database through the event recorder instead of writing a file.")
    var toDatabase = false

    @Option(
        name: .customLong("migrations"),
        help: "The folder of migration files (see `funnel migrate`); with --database.")
    var migrationsDirectory: String?

    @Option(help: "True effect of the experiment's treatment on its step's drop probability, e.g. --effect=-0.04.")
    var effect: Double?

    @Option(help: "Worker threads (default: all cores); the output is the same for any number.")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Leave out duplicates, late and out-of-order lines and clock skew.")
    var noFaults = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard Scenario.named(scenario) != nil else {
            throw ValidationError(
                "unknown scenario '\(scenario)'; known: \(Scenario.all.map(\.name).joined(separator: ", "))")
        }
        guard sessions >= 0 else { throw ValidationError("--sessions must not be negative") }
        if toDatabase, out != nil { throw ValidationError("--out and --database exclude each other") }
        if !toDatabase, out == nil { throw ValidationError("give --out FILE, or --database") }
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
        if toDatabase {
            try await record(generator)
        } else if let out {
            try write(generator, to: out)
        }
    }

    private func write(_ generator: SyntheticGenerator, to out: String) throws {
        let started = Date()
        let writer = try BufferedFileWriter(path: out)
        let summary = try generator.run(sessions: sessions, workers: workers) { try writer.write($0) }
        try writer.close()
        let paramsPath = params ?? (out.hasSuffix(".jsonl") ? String(out.dropLast(6)) : out) + ".params.json"
        try generator.report(sessions: sessions, summary: summary).jsonData().write(
            to: URL(fileURLWithPath: paramsPath))
        let seconds = Date().timeIntervalSince(started)
        output.console.status(
            "\(summary.sessions) sessions, \(summary.lines) lines → \(out) (parameters: \(paramsPath)) in "
                + String(format: "%.2f s", seconds))
    }

    /// What `--database` prints.
    struct DatabaseSummary: Codable {
        var sessions: Int
        var lines: Int
        var recorded: Int
        var committed: Int
        var duplicates: Int
        var rejected: Int
        var spooled: Int
        var dropped: Int
        var seconds: Double
        var eventsPerSecond: Double
    }

    private func record(_ generator: SyntheticGenerator) async throws {
        let console = output.console
        let migrator = try MigrationsLocation.migrator(migrationsDirectory)
        let configuration = try await database.resolve(console: console)
        let flows = generator.scenario.flows
        for flow in flows where Int32(exactly: flow.version) == nil {
            throw ValidationError("flow '\(flow.id)': version \(flow.version) does not fit the flows table")
        }
        try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            try migrator.migrate(on: connection) { console.status("applying \($0.fileName)") }
            // Reports look flows up by id; a version already stored is never replaced.
            for flow in flows { try FlowStore().save(flow, on: connection) }
        }

        let recorderConfiguration = EventRecorder.Configuration(database: configuration)
        // On a sharded coordinator, each event goes to its session's shard.
        let topology = try await BlockingIO.run { try ShardCatalog().load(configuration) }
        let recorder = try ShardedEventRecorder(configuration: recorderConfiguration, topology: topology)
        let bar = ProgressBar(enabled: !output.quiet && isatty(STDERR_FILENO) == 1)
        let started = Date()
        let (sessions, workers) = (self.sessions, self.workers)
        let (summary, counters) = try await recorder.withRunning {
            do {
                return try await BlockingIO.run {
                    try Self.feed(
                        generator, sessions: sessions, workers: workers, into: recorder, bar: bar, console: console)
                }
            } catch {
                bar.clear()
                throw error
            }
        }
        bar.clear()
        let seconds = Date().timeIntervalSince(started)
        if let params {
            try generator.report(sessions: sessions, summary: summary).jsonData().write(
                to: URL(fileURLWithPath: params))
        }
        let result = DatabaseSummary(
            sessions: summary.sessions, lines: summary.lines, recorded: counters.recorded,
            committed: counters.committed,
            duplicates: counters.duplicates, rejected: counters.rejected, spooled: counters.spooled,
            dropped: counters.dropped, seconds: seconds, eventsPerSecond: Double(counters.recorded) / max(seconds, 1e-9)
        )
        printSummary(result, console: console)
        let settled = counters.committed + counters.duplicates + counters.rejected + counters.dropped
        if settled < counters.recorded {
            throw GenerateError(
                "\(counters.recorded - settled) events could not be written and wait in the recorder's spool "
                    + "(\(recorderConfiguration.spoolDirectory ?? "none")); they are written by the next recorder "
                    + "that opens it once the database is reachable")
        }
    }

    /// Parses the generator's lines back into events and hands them to the recorder. Runs on a
    /// blocking-work thread: `record` waits when the recorder's queue is full.
    private static func feed(
        _ generator: SyntheticGenerator, sessions: Int, workers: Int, into recorder: ShardedEventRecorder,
        bar: ProgressBar,
        console: Console
    ) throws -> GenerationSummary {
        let parser = JSONEventParser()
        var started = 0
        var events = 0
        var invalid = 0
        let summary = try generator.run(sessions: sessions, workers: workers) { bytes in
            try bytes.withUnsafeBufferPointer { buffer in
                var lineStart = 0
                for index in buffer.indices where buffer[index] == 0x0A {
                    let line = UnsafeBufferPointer(rebasing: buffer[lineStart..<index])
                    lineStart = index + 1
                    // The generator's own lines: one that does not parse is a bug worth stopping for.
                    let event = try parser.parse(line)
                    do {
                        try recorder.record(event)
                    } catch let error as EventValidationError {
                        // Counted by the recorder as rejected; the first few are shown.
                        invalid += 1
                        if invalid <= 5 { console.status("event \(event.eventID) refused: \(error)") }
                    }
                    events += 1
                    if event.kind == .sessionStarted { started += 1 }
                }
            }
            // Sessions whose session_started arrived are done; late lines come at the very end.
            bar.update(done: started, total: sessions, count: events, unit: "events")
        }
        bar.update(done: sessions, total: sessions, count: events, unit: "events")
        return summary
    }

    private func printSummary(_ summary: DatabaseSummary, console: Console) {
        let header = [
            "sessions", "lines", "recorded", "committed", "duplicates", "rejected", "spooled", "dropped", "seconds",
            "events_per_second",
        ]
        let row = [
            String(summary.sessions), String(summary.lines), String(summary.recorded), String(summary.committed),
            String(summary.duplicates), String(summary.rejected), String(summary.spooled), String(summary.dropped),
            String(format: "%.3f", summary.seconds), String(format: "%.0f", summary.eventsPerSecond),
        ]
        switch output.format {
        case .json:
            do { try console.printJSON(summary) } catch { console.status("cannot encode the summary: \(error)") }
        case .csv: console.print(TextTable(header: header, rows: [row]).csv)
        case .markdown: console.print(TextTable(header: header, rows: [row]).markdown)
        case .text:
            var line =
                "\(summary.sessions) sessions: recorded \(summary.recorded) events, committed \(summary.committed), "
                + "duplicates \(summary.duplicates)"
            if summary.rejected > 0 { line += ", rejected \(summary.rejected)" }
            if summary.spooled > 0 || summary.dropped > 0 {
                line += ", spooled \(summary.spooled), dropped \(summary.dropped)"
            }
            console.print(
                line + " in \(String(format: "%.2f", summary.seconds)) s "
                    + "(\(String(format: "%.0f", summary.eventsPerSecond)) events/s)")
        }
    }
}

/// A failure of `funnel generate --database` after the events were handed over.
struct GenerateError: Error, CustomStringConvertible {
    /// What went wrong.
    enum Code: String, Sendable {
        /// Some events did not reach the database.
        case notWritten
    }

    var code: Code = .notWritten
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
