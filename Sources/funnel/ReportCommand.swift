import ArgumentParser
import Foundation
import OnboardMetrics

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Replay recorded sessions against a flow and print its funnel.",
        discussion: """
            Per step: eligible (sessions the step's condition applies to), viewed, completed, \
            skipped, dropped here, in progress here, conversion from the previous step and from \
            the start, time on step and time from start (median and p90). A conditional step \
            counts only where it applies. A session without completion is dropped once it has \
            been inactive for --inactivity before the report's end (--until, else now) or its \
            --window has passed; otherwise it is in progress and reported apart. Only events \
            within --window after a session's start count.

            Examples:
              funnel report --flow examples/flows/health-study.json
              funnel report --flow health-study --per user --by platform --format json
              funnel report --flow health-study --since 2026-01-01 --until 2026-02-01 --window 3d
            """)

    @OptionGroup var flow: FlowOptions
    @OptionGroup var range: TimeRangeOptions

    @Option(help: "What to count: session or user.")
    var per: FunnelOptions.Unit = .session

    @Option(help: "Conversion window after a session's start, e.g. 7d, 12h, 30m.")
    var window = "7d"

    @Option(help: "Inactivity after which a session without completion has dropped, e.g. 30m.")
    var inactivity = "30m"

    @Option(
        name: .customLong("by"),
        help: "Break the funnel down by a context attribute (e.g. platform) or variant:EXPERIMENT.")
    var breakdown: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var options = FunnelOptions()
        options.unit = per
        options.window = try Self.seconds(window, option: "--window")
        options.inactivity = try Self.seconds(inactivity, option: "--inactivity")
        options.since = try range.sinceDate
        options.until = try range.untilDate
        options.breakdown = breakdown
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        let reader = SessionReader(
            since: options.since, until: options.until.map { $0.addingTimeInterval(options.window) },
            closeAfter: options.window + options.inactivity)
        let bar = ProgressBar(enabled: !output.quiet && isatty(STDERR_FILENO) == 1)
        let started = Date()
        let funnelOptions = options
        let report = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            let estimate = try EventTableEstimate.rows(on: connection)
            return try FunnelReport.build(
                flow: definition, reader: reader, connection: connection, options: funnelOptions, now: Date()
            ) { read in
                bar.draw(fraction: estimate > 0 ? Double(read) / estimate : 0, count: read, unit: "events")
            }
        }
        bar.clear()
        console.status(String(format: "replayed in %.2f s", Date().timeIntervalSince(started)))
        console.print(try report.rendered(output.format))
    }

    /// Seconds in a duration like `7d`, `12h`, `30m`, `45s` or a plain number of seconds.
    static func seconds(_ text: String, option: String) throws -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let unit = trimmed.last.flatMap { units[$0] }
        let number = unit == nil ? trimmed : String(trimmed.dropLast())
        guard let value = Double(number), value > 0, value.isFinite else {
            throw ValidationError("\(option) '\(text)' is not a duration: use e.g. 7d, 12h, 30m or 45s")
        }
        return value * (unit ?? 1)
    }
}

extension FunnelOptions.Unit: ExpressibleByArgument {}

/// PostgreSQL's own estimate of the rows in `events` (from the planner statistics), for progress.
enum EventTableEstimate {
    static func rows(on connection: PostgresConnection) throws -> Double {
        let row = try connection.query(
            """
            SELECT coalesce(sum(greatest(c.reltuples, 0)), 0)::float8 AS rows
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass
            """
        ).first
        return row?["rows"].double ?? 0
    }
}
