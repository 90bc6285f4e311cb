import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel retention`: are people still active N days after onboarding, by how it went?
struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Day-N retention after onboarding, per outcome, variant or flow version, with intervals.",
        discussion: """
            Per person (--per user, the default; ids linked by identify or alias are one person), \
            onboarding starts at their first session of the flow in range; with --per session every \
            onboarding session starts its own clock. Day N retained = any event of the person, in any \
            session, in [start + N days, start + N + 1 days). A unit counts in day N's denominator only \
            when the data's end (--until, else the newest event read) is at least N + 1 days after its \
            start. Groups (--by): outcome (completed, dropped, in progress, decided as `funnel report` \
            decides them with --window and --inactivity), variant:EXPERIMENT (the first variant the \
            unit was exposed to) or flow_version. Rates carry Wilson intervals; each group is compared \
            with the reference group (dropped; control; the lowest version) by the difference of rates \
            with Newcombe's interval. This is association, not cause: people who finish onboarding may \
            differ from those who drop in other ways. --format html draws a retention curve.

            Examples:
              funnel retention --flow health-study
              funnel retention --flow health-study --by variant:welcome-copy --days 1,3,7,14 --format json
              funnel retention --flow examples/flows/health-study.json --per session --format html --output retention.html
            """)

    @OptionGroup var flow: FlowOptions

    @Option(help: "Groups: outcome, variant:EXPERIMENT or flow_version.")
    var by = "outcome"

    @Option(help: "Days after the start to measure, comma-separated whole numbers (0 is the start's own day).")
    var days = "1,7,30"

    @Option(help: "What a unit is: user (a person's first onboarding) or session (every onboarding session).")
    var per: FunnelOptions.Unit = .user

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timing: FunnelTimingOptions

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        _ = try makeOptions()
    }

    private func makeOptions() throws -> RetentionOptions {
        var options = RetentionOptions()
        guard let grouping = RetentionOptions.Grouping(by) else {
            throw ValidationError("--by must be outcome, variant:EXPERIMENT or flow_version, not '\(by)'")
        }
        options.grouping = grouping
        switch RetentionOptions.days(parsing: days) {
        case .success(let parsed): options.days = parsed
        case .failure(let failure):
            throw ValidationError(
                "--days takes whole numbers from 0 to 3650, comma-separated; '\(failure.part)' is not one")
        }
        options.unit = per
        options.window = try timing.windowSeconds()
        options.inactivity = try timing.inactivitySeconds()
        options.since = try range.sinceDate
        options.until = try range.untilDate
        return options
    }

    func run() async throws {
        let options = try makeOptions()
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        let now = Date()
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: options.reader, read: read,
            people: true
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                RetentionAggregator(flow: definition, options: options, now: now)
            }
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}
