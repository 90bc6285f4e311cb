import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel correlate`: which events and context values go with completing a flow, and which with dropping out.
struct CorrelateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "correlate",
        abstract: "Events and context values associated with completing a flow (or a step) versus dropping out.",
        discussion: """
            ASSOCIATION, NOT CAUSE: a candidate that goes with success may only mark the people who \
            would have succeeded anyway. Use an experiment (funnel experiment) to learn what a change causes.

            Units of the flow (sessions, or users with --per user) are replayed as in funnel report. \
            Success: completed the flow within --window (with --step S: viewed S, then completed or \
            skipped it, viewed a later step, or completed the flow). Failure: dropped. Units in progress \
            are left out (with --step, also those that never viewed S). Candidates: every event a unit \
            recorded within its window before its success or drop, by kind and name (feature_used:share, \
            highlight_shown:x, custom:y, experiment_exposure:key=variant; the flow's own session, step \
            and flow events excluded), and every context value (platform=ios, app_version=2.1). A \
            candidate every success and failure has (the --by value itself, a step's condition) is left out.

            Per candidate: s of the S successes and f of the F failures have it; the odds ratio with a \
            prior of one, as PostHog: ((s+1)(F-f+1)) / ((S-s+1)(f+1)) (above 1: goes with success); \
            Fisher's exact two-sided p-value of [[s, S-s], [f, F-f]]; and that p-value adjusted for \
            the number of candidates tested (--correction bh: Benjamini-Hochberg, the expected share \
            of false findings among the significant ones stays under --alpha; holm: the chance of any \
            false finding does). Significant: adjusted p < --alpha. The --top K strongest each way \
            are listed (0: all); JSON says how many were tested.

            Warnings: fewer than 30 successes or failures in a group (only strong associations can \
            show); a success share below 10% or above 90% (the rare side has few units, and odds \
            ratios of candidates common on the other side are unstable). --by runs the analysis per \
            breakdown value, each with its own correction.

            Examples:
              funnel correlate --flow examples/flows/health-study.json
              funnel correlate --flow health-study --step notifications --per user --top 5
              funnel correlate --flow health-study --by platform --correction holm --format json
            """)

    @OptionGroup var flow: FlowOptions

    @Option(help: "A step id: units that viewed it, split by whether they moved past it (default: the whole flow).")
    var step: String?

    @OptionGroup var range: TimeRangeOptions

    @Option(help: "What to count: session or user.")
    var per: FunnelOptions.Unit = .session

    @OptionGroup var timing: FunnelTimingOptions

    @Option(
        name: .customLong("by"),
        help: "Correlate per value of a context attribute (e.g. platform) or variant:EXPERIMENT.")
    var breakdown: String?

    @Option(help: "Multiple-comparison correction across the candidates: bh (Benjamini-Hochberg) or holm.")
    var correction: MultipleComparisonCorrection = .bh

    @Option(help: "Significance level for the adjusted p-values.")
    var alpha = 0.05

    @Option(help: "Candidates listed each way (positive, negative); 0 for all.")
    var top = 10

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
        guard top >= 0 else { throw ValidationError("--top must be 0 or more") }
        _ = try makeOptions()
    }

    private func makeOptions() throws -> CorrelationOptions {
        var options = CorrelationOptions()
        options.funnel.unit = per
        options.funnel.window = try timing.windowSeconds()
        options.funnel.inactivity = try timing.inactivitySeconds()
        options.funnel.since = try range.sinceDate
        options.funnel.until = try range.untilDate
        options.funnel.breakdown = breakdown
        options.step = step
        options.correction = correction
        options.alpha = alpha
        options.top = top
        return options
    }

    func run() async throws {
        let options = try makeOptions()
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        // A bad --step is a usage error: say so before reading anything.
        do {
            _ = try CorrelationAggregator(flow: definition, options: options, now: Date())
        } catch let error as CorrelationError {
            throw ValidationError(error.message)
        }
        let started = Date()
        let now = Date()
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: options.reader, read: read,
            people: per == .user
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                try CorrelationAggregator(flow: definition, options: options, now: now)
            }
        }
        console.status(String(format: "replayed in %.2f s", Date().timeIntervalSince(started)))
        try output.emit(rendered: report.rendered, html: report.html)
    }
}

extension MultipleComparisonCorrection: ExpressibleByArgument {}
