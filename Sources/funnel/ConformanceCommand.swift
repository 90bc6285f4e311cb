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

    @OptionGroup var flow: FlowOptions
    @OptionGroup var range: TimeRangeOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func run() async throws {
        let console = output.console
        let options = ConformanceOptions(since: try range.sinceDate, until: try range.untilDate)
        // Conformance judges the flow's events: finished sessions need not wait out the window.
        let reader = SessionReader(since: options.since, until: options.until, closeFinishedAfter: 3_600)
        let configuration = try await database.resolve(console: console)
        let (definition, catalog) = try await flow.load(configuration: configuration)
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: reader, read: read
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                ConformanceAggregator(flow: definition, catalog: catalog, options: options)
            }
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}
