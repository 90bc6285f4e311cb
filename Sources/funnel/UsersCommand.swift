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
              funnel users --flow health-study --step consent --status dropped --per user --save-cohort consent-droppers
              funnel retention --flow health-study --cohort consent-droppers
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

    @Option(
        help: ArgumentHelp(
            "Save the units listed as a cohort of this name, for any report's --cohort.",
            discussion: "1-64 letters, digits, dots, dashes or underscores. The cohort keeps the session ids "
                + "(--per session) or the people (--per user) listed now; it does not change as events arrive.",
            valueName: "name"))
    var saveCohort: String?

    @Flag(help: "With --save-cohort: replace a cohort of the same name.")
    var replace = false

    @Option(help: "Output format: csv, json, text, markdown, or html (a page written to --output).")
    var format: HTMLOutputOptions.Format = .csv

    @Option(name: .customLong("output"), help: "The file --format html writes.")
    var outputFile = "users.html"

    @Flag(name: .shortAndLong, help: "Print no progress or status lines on stderr.")
    var quiet = false

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        if replace, saveCohort == nil { throw ValidationError("--replace goes with --save-cohort NAME") }
        if let saveCohort {
            do { try CohortStore.validate(saveCohort) } catch let error as CohortError {
                throw ValidationError(error.message)
            }
        }
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
            configuration: configuration, quiet: quiet, reader: options.reader, read: read,
            people: per == .user
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                try UnitListAggregator(flow: definition, options: options, now: now)
            }
        }
        if let name = saveCohort {
            let cohort = Cohort(
                name: name, unit: per == .user ? .user : .session,
                description: "users --flow \(definition.id) v\(definition.version)"
                    + (step.map { " --step \($0)" } ?? "") + " --status \(status.rawValue) --per \(per.rawValue)",
                members: Set(
                    report.rows.map { per == .user ? $0.userID : $0.sessionID.uuidString.lowercased() }))
            let replace = replace
            try await BlockingIO.run {
                let connection = try PostgresConnection(configuration: configuration)
                defer { connection.close() }
                try CohortStore().save(cohort, replace: replace, on: connection)
            }
            console.status("saved cohort \(name): \(cohort.members.count) \(cohort.unit.rawValue)s")
        }
        guard let plain = format.plain else {
            try HTMLOutputOptions.write(report.html(), to: outputFile)
            console.status("wrote \(outputFile)")
            return
        }
        try console.stream { try report.write(plain, to: $0) }
    }
}

extension UnitListOptions.Status: ExpressibleByArgument {}
