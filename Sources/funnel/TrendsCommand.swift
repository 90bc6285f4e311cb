import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel trends`: a flow's completion and step conversion per day, week or month.
struct TrendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "A flow's completion rate (with its Wilson interval) and step conversion per day, week or month.",
        discussion: """
            Sessions are counted in the period they started in (UTC days, ISO weeks from Monday, or \
            calendar months) and replayed as `funnel report` replays them: completion is completed \
            among sessions no longer in progress, a step's conversion is viewed among the sessions \
            it applied to. A period where more than half of the sessions are still in progress is \
            marked "mostly in progress": its rates are provisional, not a drop. --by draws one line \
            per value of a context attribute (or variant:EXPERIMENT). --format html writes a line \
            chart with the intervals as bands.

            Examples:
              funnel trends --flow health-study --interval day
              funnel trends --flow examples/flows/health-study.json --interval week --by platform --format json
              funnel trends --flow health-study --interval month --format html --output trends.html
            """)

    @OptionGroup var flow: FlowOptions

    @Option(help: "Period length: day, week (ISO, from Monday) or month; UTC.")
    var interval: TrendInterval = .week

    @Option(
        name: .customLong("by"),
        help: "One series per value of a context attribute (e.g. platform) or variant:EXPERIMENT.")
    var breakdown: String?

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timing: FunnelTimingOptions

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        _ = try makeOptions()
    }

    private func makeOptions() throws -> TrendOptions {
        var options = TrendOptions()
        options.interval = interval
        options.funnel.window = try timing.windowSeconds()
        options.funnel.inactivity = try timing.inactivitySeconds()
        options.funnel.since = try range.sinceDate
        options.funnel.until = try range.untilDate
        options.funnel.breakdown = breakdown
        return options
    }

    func run() async throws {
        let options = try makeOptions()
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        let reader = SessionReader(
            since: options.funnel.since,
            until: options.funnel.until.map { $0.addingTimeInterval(options.funnel.window) },
            closeAfter: options.funnel.window + options.funnel.inactivity,
            closeFinishedAfter: options.funnel.inactivity)
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: reader, read: read
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                TrendAggregator(flow: definition, options: options, now: Date())
            }
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}

extension TrendInterval: ExpressibleByArgument {}
