import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel simulate`: forecast a changed flow from the recorded sessions of the current one.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Forecast a candidate flow's funnel from recorded sessions of the current flow, with intervals.",
        discussion: """
            Every finished recorded session of the baseline flow (--baseline; default: the stored flow with \
            the candidate's id) is replayed through the candidate's navigator with its own context, so a \
            changed condition, a removed, added or reordered step changes which steps it can view. On each \
            step the shares who drop, jump ahead and skip are those recorded for that step among sessions \
            with the same baseline conditions (and the same --stratify attribute). A step the baseline never \
            showed needs --assume STEP=RATE: the share of its viewers expected to go on.

            Output: forecast versus recorded per step and in total, the completion delta with its \
            interval (a Poisson bootstrap over users, --draws), the back-test (the baseline simulated by \
            the same model must reproduce its recorded completion), the sessions per arm an A/B test \
            needs to confirm the delta, and the model's assumptions.

            Examples:
              funnel simulate --flow candidate.json --baseline health-study
              funnel simulate --flow candidate.json --baseline examples/flows/health-study.json \\
                  --assume tutorial=0.9 --draws 2000 --seed 7 --format json
              funnel simulate --flow candidate.json --variant consent-copy:control --stratify platform
            """)

    @OptionGroup var flow: FlowOptions

    @Option(help: "The flow the recorded sessions ran (JSON file or stored id). Default: the candidate's id, stored.")
    var baseline: String?

    @Option(
        help: ArgumentHelp(
            "STEP=RATE: the share of a step's viewers who go on; repeatable.",
            discussion: "Required for candidate steps without recorded data; overrides the data for others."))
    var assume: [String] = []

    @Option(help: "Bootstrap draws for the intervals.")
    var draws = 1_000

    @Option(help: "Seed of the bootstrap (same seed and data, same report).")
    var seed: UInt64 = 1

    @Option(help: "A context attribute to estimate behaviour separately for (e.g. platform).")
    var stratify: String?

    @Option(help: "Use only sessions exposed to one variant, as EXPERIMENT:VARIANT (e.g. consent-copy:control).")
    var variant: String?

    @Option(help: "Below this many viewers of a step in a stratum, behaviour is pooled over all strata.")
    var minViewers = 30

    @OptionGroup var timing: FunnelTimingOptions

    @OptionGroup var range: TimeRangeOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID: the candidate flow") }
        guard draws >= 1, draws <= 1_000_000 else { throw ValidationError("--draws must be between 1 and 1000000") }
        guard minViewers >= 1 else { throw ValidationError("--min-viewers must be at least 1") }
        _ = try assumptions()
        _ = try variantFilter()
        _ = try timing.windowSeconds()
        _ = try timing.inactivitySeconds()
    }

    private func assumptions() throws -> [String: Double] {
        var result: [String: Double] = [:]
        for text in assume {
            do {
                let (step, rate) = try SimulationOptions.assumption(parsing: text)
                result[step] = rate
            } catch {
                throw ValidationError("--assume \(error.message)")
            }
        }
        return result
    }

    private func variantFilter() throws -> SimulationOptions.VariantFilter? {
        guard let variant else { return nil }
        let parts = variant.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ValidationError("--variant '\(variant)' is not EXPERIMENT:VARIANT (e.g. consent-copy:control)")
        }
        return .init(experiment: parts[0], variant: parts[1])
    }

    func run() async throws {
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (candidate, catalog) = try await flow.load(configuration: configuration)
        let baselineName = baseline ?? candidate.id
        let (baselineFlow, _) = try await FlowOptions.parse(["--flow", baselineName]).load(configuration: configuration)
        var options = SimulationOptions(candidate: candidate, baseline: baselineFlow)
        options.catalog = catalog
        options.assumptions = try assumptions()
        options.draws = draws
        options.seed = seed
        options.stratify = stratify
        options.variant = try variantFilter()
        options.minimumObservations = minViewers
        options.window = try timing.windowSeconds()
        options.inactivity = try timing.inactivitySeconds()
        options.since = try range.sinceDate
        options.until = try range.untilDate
        let reader = SessionReader(
            since: options.since, until: options.until.map { $0.addingTimeInterval(options.window) },
            closeAfter: options.window + options.inactivity, closeFinishedAfter: options.inactivity)
        let prepared = options
        let started = Date()
        // A SimulationError says what to change in its message; it is not a usage error.
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: reader, read: read
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                try SimulationSampler(options: prepared, now: Date())
            }
        }
        console.status(String(format: "simulated in %.2f s", Date().timeIntervalSince(started)))
        if !report.backTest.withinInterval {
            console.status(
                "warning: back-test failed — the baseline simulated by the model misses its recorded completion")
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}
