import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel conformance`: how well recorded sessions follow their flow.
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Replay each session of a flow and report how well it fits: fitness and deviations.",
        discussion: """
            Each session of the flow (by its flow id) is replayed through the flow's navigator, which \
            names every recorded event that is not a legal move: unknown step, out of order (not \
            reachable and not a declared jump), condition violated, completed without view, and more. \
            A session's fitness is 1 - d / (e + d), with e the events judged (step, flow and highlight \
            events) and d the deviations found: 1 when it fits perfectly. Reported: the share that \
            fits perfectly, the fitness distribution (mean, p10, median, p90, a histogram in steps of \
            0.1) and the deviations by kind, flow and step with example session ids. \
            --since/--until select sessions by their start.
            """)

    // INTERIM: replace `flow`, `since` and `until` with the lead's FlowOptions and TimeRangeOptions
    // (Sources/funnel/FlowOptions.swift) once they land on this branch.
    @Option(help: "The flow definition (JSON file); the other flows in its folder are its sub-flows.")
    var flow: String

    @Option(help: "Sessions that started at or after: ISO 8601 (2026-01-31, 2026-01-31T09:00:00Z).")
    var since: String?

    @Option(help: "Sessions that started before (exclusive), ISO 8601.")
    var until: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = output.console
        let (definition, catalog) = try InterimFlowFile.load(flow)
        let options = ConformanceOptions(
            since: try InterimDate.parse(since, option: "--since"),
            until: try InterimDate.parse(until, option: "--until"))
        let reader = SessionReader(since: options.since, until: options.until)
        let configuration = try await database.resolve(console: console)
        let report = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try ConformanceReport.build(
                flow: definition, catalog: catalog, reader: reader, connection: connection, options: options,
                progress: { if $0 % 1_000_000 == 0 { console.status("read \($0) events") } })
        }
        console.print(try report.rendered(output.format))
    }
}

/// INTERIM, until the lead's FlowOptions lands: `--flow FILE` and the catalog of its folder.
enum InterimFlowFile {
    static func load(_ path: String) throws -> (FlowDefinition, FlowCatalog) {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ValidationError("--flow \(path): cannot read the file (\(error.localizedDescription))")
        }
        let definition = try FlowDefinition.decode(from: data)
        // The folder's other flows are the sub-flows hand-offs enter; a folder that does not load
        // as a catalog leaves the flow on its own.
        if let siblings = try? FlowCatalog.load(directory: url.deletingLastPathComponent()) {
            return (definition, siblings)
        }
        return (definition, try FlowCatalog([definition]))
    }
}

/// INTERIM, until the lead's TimeRangeOptions lands: `--since` / `--until` values.
enum InterimDate {
    static func parse(_ text: String?, option: String) throws -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text.count == 10 ? text + "T00:00:00Z" : text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw ValidationError("\(option) '\(text)' is not a date: use 2026-01-31 or 2026-01-31T09:00:00Z")
    }
}
