import ArgumentParser
import Foundation
import OnboardMetrics

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Replay recorded sessions against a flow (or ad-hoc steps) and print the funnel.",
        discussion: """
            Per step: eligible (sessions the step's condition applies to), viewed, completed, \
            skipped, dropped here, in progress here, conversion from the previous step and from \
            the start, time on step and time from start (median and p90). A conditional step \
            counts only where it applies. A session without completion is dropped once it has \
            been inactive for --inactivity before the report's end (--until, else now) or its \
            --window has passed; otherwise it is in progress and reported apart. Only events \
            within --window after a session's start count.

            Ad-hoc funnels (--steps a,b,c) work on logs without a flow definition: a step matches an \
            event whose name is it (custom events, features, highlights, and the name a Segment or \
            PostHog call was sent with when the mapping made it an onboarding kind), a step_viewed \
            of that step id, or an event of that kind; KIND:VALUE pins the kind (feature_used:share). \
            --order ordered allows other events between steps, strict allows none, any takes the \
            steps in any order. Each step-1 occurrence starts a chain; the furthest step reached \
            within --window wins. Timestamp ties follow PostHog: events at one instant that match \
            different steps are expanded into one entry per matched step and taken in step order, \
            each event filling at most one step of a chain, and events matching no step drop out \
            of such a tie (they do not break a strict chain); so a user whose ten steps, over four \
            event names, all happen at one instant converts through all ten.

            Examples:
              funnel report --flow examples/flows/health-study.json
              funnel report --flow health-study --per user --by platform --format json
              funnel report --flow health-study --since 2026-01-01 --until 2026-02-01 --window 3d
              funnel report --steps highlight_shown:share-button,feature_used:share --per user
            """)

    @OptionGroup var flow: FlowOptions

    @Option(help: "Ad-hoc funnel steps, comma-separated (event names, step ids, kinds, or KIND:VALUE).")
    var steps: String?

    @Option(help: "Ad-hoc step order: ordered, strict or any.")
    var order: AdHocFunnel.Order = .ordered

    @OptionGroup var range: TimeRangeOptions

    @Option(help: "What to count: session or user.")
    var per: FunnelOptions.Unit = .session

    @OptionGroup var timing: FunnelTimingOptions

    @Option(
        name: .customLong("by"),
        help: "Break the funnel down by a context attribute (e.g. platform) or variant:EXPERIMENT.")
    var breakdown: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard (flow.flow == nil) != (steps == nil) else {
            throw ValidationError("pass either --flow FILE|ID (a flow funnel) or --steps a,b,c (an ad-hoc funnel)")
        }
        _ = try timing.windowSeconds()
        _ = try timing.inactivitySeconds()
    }

    func run() async throws {
        var options = FunnelOptions()
        options.unit = per
        options.window = try timing.windowSeconds()
        options.inactivity = try timing.inactivitySeconds()
        options.since = try range.sinceDate
        options.until = try range.untilDate
        options.breakdown = breakdown
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let started = Date()
        let emit: () throws -> Void
        if let steps {
            let funnel = try AdHocFunnel(
                steps: AdHocFunnel.steps(parsing: steps), order: order, window: options.window, unit: options.unit)
            let report = try await ReplayProgress.runDeployment(
                configuration: configuration, quiet: output.quiet, reader: AdHocFunnelReport.reader(options: options),
                read: read, people: options.unit == .user
            ) { sharded, progress in
                try await AdHocFunnelReport.read(funnel: funnel, from: sharded, progress: progress.update)
            }
            emit = { try output.emit(rendered: report.rendered, html: report.html) }
        } else {
            let (definition, _) = try await flow.load(configuration: configuration)
            let funnelOptions = options
            let report = try await ReplayProgress.runDeployment(
                configuration: configuration, quiet: output.quiet, reader: FunnelReport.reader(options: options),
                read: read, people: options.unit == .user
            ) { sharded, progress in
                try await FunnelReport.read(
                    flow: definition, options: funnelOptions, from: sharded, now: Date(), progress: progress.update)
            }
            emit = { try output.emit(rendered: report.rendered, html: report.html) }
        }
        console.status(String(format: "replayed in %.2f s", Date().timeIntervalSince(started)))
        try emit()
    }

    /// Seconds in a duration like `7d`, `12h`, `30m` or `1h30m`.
    static func seconds(_ text: String, option: String) throws -> TimeInterval {
        do {
            return try DurationText.parse(text)
        } catch {
            throw ValidationError("\(option) \(error.message)")
        }
    }
}

extension FunnelOptions.Unit: ExpressibleByArgument {}
extension AdHocFunnel.Order: ExpressibleByArgument {}
