import ArgumentParser
import Foundation
import OnboardMetrics

/// `--flow FILE|ID`: the flow a report replays sessions against.
struct FlowOptions: ParsableArguments {
    @Option(
        name: .customLong("flow"),
        help: ArgumentHelp(
            "A flow definition (JSON file), or the id of a flow stored in the database.",
            discussion: "With a file that hands off to sub-flows, the other flows in its folder are the sub-flows "
                + "(e.g. examples/flows/); an error in one of them stops the command. With an id, the newest "
                + "stored version is used. examples/flows/NAME.json also works without the source tree: "
                + "funnel carries those files."))
    var flow: String?

    /// The flow and the catalog of flows it may hand off to.
    /// - Throws: `ValidationError` when neither a file nor a stored flow has that name; `FlowError` for a bad file.
    func load(configuration: PostgresConfiguration) async throws -> (FlowDefinition, FlowCatalog) {
        guard let flow else { throw ValidationError("pass --flow FILE|ID") }
        if FileManager.default.fileExists(atPath: flow) {
            let url = URL(fileURLWithPath: flow)
            let definition: FlowDefinition
            do {
                definition = try FlowDefinition.decode(from: try Data(contentsOf: url))
            } catch let error as FlowError {
                var located = error
                located.path = "\(url.lastPathComponent): \(error.path ?? "$")"
                throw located
            }
            // A flow without hand-offs needs no other flow: the files beside it are not read.
            guard definition.steps.contains(where: { $0.handOff != nil }) else {
                return (definition, try FlowCatalog([definition]))
            }
            // The folder's other flows are the sub-flows it may hand off to: an error in one of
            // them is reported as it is, with its file, rather than as a missing hand-off target.
            return (definition, try FlowCatalog.load(directory: url.deletingLastPathComponent()))
        }
        // examples/flows/NAME.json from a folder without the source tree: the copy in the binary.
        if let bundled = try ExampleFlows.bundled(named: flow) { return bundled }
        let definitions = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try FlowStore().latest(on: connection)
        }
        guard let definition = definitions.first(where: { $0.id == flow }) else {
            throw ValidationError(
                "no flow file '\(flow)' and no stored flow with that id"
                    + (definitions.isEmpty
                        ? "" : " (stored: \(definitions.map(\.id).sorted().joined(separator: ", ")))"))
        }
        return (definition, try FlowCatalog(definitions))
    }
}

/// `--since` and `--until`: the time range of a report.
struct TimeRangeOptions: ParsableArguments {
    @Option(help: "Start of the range: ISO 8601 (2026-01-31, 2026-01-31T09:00:00Z). Default: all data.")
    var since: String?

    @Option(
        help: "End of the range (exclusive), ISO 8601. Default: all data; dropped versus in progress is judged now.")
    var until: String?

    var sinceDate: Date? { get throws { try since.map { try Self.parse($0, option: "--since") } } }

    func validate() throws {
        if let since = try sinceDate, let until = try untilDate, since >= until {
            throw ValidationError(
                "--since \(self.since ?? "") is not before --until \(self.until ?? ""): the range is empty")
        }
    }
    var untilDate: Date? { get throws { try until.map { try Self.parse($0, option: "--until") } } }

    static func parse(_ text: String, option: String) throws -> Date {
        guard let date = DateText.parse(text) else {
            throw ValidationError("\(option) '\(text)' is not a date: use 2026-01-31 or 2026-01-31T09:00:00Z")
        }
        guard !DateText.isBeforeEvents(date) else {
            throw ValidationError(
                "\(option) '\(text)' is before 1970, where no event can be (leave it out to read all data)")
        }
        return date
    }
}
