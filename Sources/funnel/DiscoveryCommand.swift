import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel discovery`: did people use a feature after a highlight pointed at it?
struct DiscoveryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discovery",
        abstract: "Per highlight: shown, dismissed by reason, discovery rate with 95% CI, baseline and uplift.",
        discussion: """
            For each highlight H (of feature F, from the events' properties.feature; where its showings name several, the smallest name, and showings that name none count against it): units shown H; \
            "already knew" (used F before the first showing; they leave the denominator); discovered \
            (used F within --window after the first showing); the discovery rate with its 95% Wilson \
            interval; median time to discovery; units by first dismissal reason. The baseline is the \
            organic rate among comparable units: those of the flows H was shown in that were never \
            shown H, counting use of F within --window after their start. Uplift = rate - baseline, \
            with Newcombe's 95% interval for a difference of proportions.

            --holdout EXPERIMENT compares, per highlight, the units exposed to EXPERIMENT's other \
            variants with those of its --holdout-variant (default "holdout"), which the app never shows \
            the highlight: discovery counted from the exposure, units that used the feature before it \
            left out, all exposed units counted whether shown or not (intention to treat). The \
            difference carries Newcombe's interval and a two-proportion z-test p-value: a randomized, \
            causal estimate, where the baseline is observational.

            --per user merges each user's sessions (earliest showing, all feature use); it keeps a small \
            trace per user in memory until the read ends. Sessions are held open across gaps as long as \
            --window, since feature use may come days after the showing. --since/--until select units \
            by their start; events up to --until plus --window are read.
            """)

    @Option(help: "Only this highlight id (default: every highlight shown).")
    var highlight: String?

    @Option(help: "Discovery window after the first showing, e.g. 7d, 12h, 30m.")
    var window = "7d"

    @Option(
        help: ArgumentHelp(
            "An experiment with a randomized holdout variant that is never shown the highlights: compare with it.",
            valueName: "experiment"))
    var holdout: String?

    @Option(help: "The --holdout experiment's variant that is never shown the highlights.")
    var holdoutVariant = "holdout"

    @Option(help: "What a unit is: session or user.")
    var per: FunnelOptions.Unit = .session

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        _ = try makeOptions()
    }

    private func makeOptions() throws -> DiscoveryOptions {
        var options = DiscoveryOptions()
        do {
            options.window = try DurationText.parse(window)
        } catch {
            throw ValidationError("--window \(error.message)")
        }
        options.unit = per
        options.highlight = highlight
        options.holdout = holdout
        options.holdoutVariant = holdoutVariant
        options.since = try range.sinceDate
        options.until = try range.untilDate
        return options
    }

    func run() async throws {
        let console = output.console
        let options = try makeOptions()
        let configuration = try await database.resolve(console: console)
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: options.reader, read: read,
            people: per == .user
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) { DiscoveryAggregator(options: options) }
        }
        if output.format == .text, let highlight, report.highlights.isEmpty {
            console.status("highlight '\(highlight)' was never shown in the data read")
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}
