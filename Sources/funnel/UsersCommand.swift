import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel users`: who the units at a step are, for export.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List the sessions or users with a status at a step (CSV by default), to look at or contact them.",
        discussion: """
            Replays the flow as `funnel report` does and lists the units (--per session or user) that \
            viewed, completed or skipped --step, or dropped or are in progress there (their last step \
            viewed); without --step, by the flow's outcome (viewed: every unit that started). Columns: \
            user_id, session_id (per user: the person's first session), sessions, start, last_event \
            (UTC, milliseconds), outcome. The counts agree with `funnel report` for the same options: \
            e.g. --status dropped --step consent lists its dropped_here units.

            Examples:
              funnel users --flow health-study --step consent --status dropped > dropped-at-consent.csv
              funnel users --flow health-study --status completed --per user --format json
            """)

    @OptionGroup var flow: FlowOptions

    @Option(help: "The step the status is about (default: the flow as a whole).")
    var step: String?

    @Option(help: "viewed, completed, skipped (needs --step), dropped or in_progress.")
    var status: UnitListOptions.Status = .dropped

    @Option(help: "What a unit is: session or user.")
    var per: FunnelOptions.Unit = .session

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timing: FunnelTimingOptions

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions

    @Option(help: "Output format: csv, json, text, markdown, or html (a page written to --output).")
    var format: HTMLOutputOptions.Format = .csv

    @Option(name: .customLong("output"), help: "The file --format html writes.")
    var outputFile = "users.html"

    @Flag(name: .shortAndLong, help: "Print no progress or status lines on stderr.")
    var quiet = false

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        if step == nil, status == .skipped { throw ValidationError("--status skipped needs --step") }
        _ = try makeOptions()
    }

    private func makeOptions() throws -> UnitListOptions {
        var options = UnitListOptions()
        options.unit = per
        options.step = step
        options.status = status
        options.window = try timing.windowSeconds()
        options.inactivity = try timing.inactivitySeconds()
        options.since = try range.sinceDate
        options.until = try range.untilDate
        return options
    }

    func run() async throws {
        let options = try makeOptions()
        let console = Console(quiet: quiet)
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        let now = Date()
        do {
            _ = try UnitListAggregator(flow: definition, options: options, now: now)
        } catch let error as UnitListError {
            throw ValidationError(error.description)
        }
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: quiet, reader: options.reader, connections: read.connections,
            people: per == .user
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                try UnitListAggregator(flow: definition, options: options, now: now)
            }
        }
        guard let plain = format.plain else {
            try HTMLOutputOptions.write(report.html(), to: outputFile)
            console.status("wrote \(outputFile)")
            return
        }
        console.print(try report.rendered(plain))
    }
}

extension UnitListOptions.Status: ExpressibleByArgument {}
