import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel experiment`: per variant rates and the comparison with control.
struct ExperimentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract:
            "Compare an experiment's variants: rates, differences with 95% CI, p-values, Bayesian odds, SRM, power.",
        discussion: """
            Units are those with an experiment_exposure named KEY (a session's first exposure gives its \
            variant). Metrics: completion (flow_completed), step:ID (step_completed of ID), \
            discovery:FEATURE (feature_used FEATURE; units that used it before exposure leave the \
            denominator), funnel:FLOW (every step of FLOW and its completion, each over all exposed units: \
            GrowthBook's funnel metric with one denominator; step-to-step rates are shown for reading, \
            without p-values, as the units reaching a step are a subset the variant itself changes); \
            conversions count within --window after the exposure. Repeat --metric for \
            several; Holm's correction (or Benjamini-Hochberg's, --correction bh) spans all variant x \
            metric comparisons.

            Per variant versus control (the stored experiment's first variant, else "control"): absolute \
            difference (Newcombe 95% CI), relative difference (log risk-ratio CI), two-proportion z-test \
            p-value and its Holm adjustment; chance to beat control and expected loss (Beta(1,1) priors, \
            normal approximation); units per arm still needed to detect +/- --mde. A chi-squared test of \
            exposed units against the stored weights (equal without a stored experiment) flags a sample \
            ratio mismatch below p = 0.001.

            --sequential: always-valid inference for looking at a running experiment as often as you \
            like (GrowthBook's sequential testing): the mixture SPRT / normal-mixture confidence \
            sequence of Waudby-Smith et al. (2023) for the absolute difference, tuned by --tuning N* \
            (default 5000 units in all: the interval is tightest there, valid everywhere). The \
            intervals are wider than fixed-horizon ones; the chance that one ever excludes the true \
            difference, over any number of looks, is at most alpha.

            Examples:
              funnel experiment consent-copy --metric step:consent
              funnel experiment consent-copy --metric completion --metric step:consent --engine bayesian
              funnel experiment consent-copy --flow examples/flows/health-study.json --format json
              funnel experiment consent-copy --metric step:consent --sequential --tuning 20000
              funnel experiment consent-copy --metric funnel:health-study --correction bh
            """)

    @Argument(help: "The experiment key.")
    var key: String

    @Option(help: "completion, step:ID or discovery:FEATURE; repeatable.")
    var metric: [String] = []

    @Option(help: "Which verdict to print: frequentist or bayesian (JSON holds both).")
    var engine: ExperimentOptions.Engine = .frequentist

    @Option(help: "Minimum detectable effect, absolute (0.02 = 2 percentage points), for the power analysis.")
    var mde = 0.02

    @Option(help: "What a unit is: session or user.")
    var per: FunnelOptions.Unit = .session

    @Option(help: "Conversion window after the exposure, e.g. 7d, 12h.")
    var window = "7d"

    @Flag(
        help: ArgumentHelp(
            "Sequential testing: always-valid intervals and p-values (mixture SPRT), safe to look at any time.",
            discussion: "Holm's adjustment and the verdict then use the always-valid p-values."))
    var sequential = false

    @Option(
        help:
            "N* of --sequential: the total units at which its interval is tightest (GrowthBook's default; 10 to 10^10)."
    )
    var tuning = MixtureSequentialTest.defaultTuning

    @Option(
        help: ArgumentHelp(
            "Multiple-comparison correction across variants x metrics: holm (family-wise error) or bh.",
            discussion: "bh (Benjamini-Hochberg) bounds the expected share of false findings among the "
                + "significant comparisons instead of the chance of any; less strict with many comparisons."))
    var correction: MultipleComparisonCorrection = .holm

    @OptionGroup var flow: FlowOptions
    @OptionGroup var range: TimeRangeOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        _ = try makeOptions()
    }

    private func makeOptions() throws -> ExperimentOptions {
        var options = ExperimentOptions(key: key)
        do {
            options.metrics = try (metric.isEmpty ? ["completion"] : metric).map(
                ExperimentOptions.Metric.init(parsing:))
        } catch let error as ExperimentError {
            throw ValidationError("--metric: \(error.message)")
        }
        guard mde > 0, mde < 1 else { throw ValidationError("--mde must be between 0 and 1 (e.g. 0.02)") }
        options.mde = mde
        options.engine = engine
        guard MixtureSequentialTest.tuningRange.contains(tuning) else {
            throw ValidationError("--tuning must be a number of units from 10 to 10000000000 (it was \(tuning))")
        }
        options.sequential = sequential
        options.sequentialTuning = tuning
        options.unit = per
        do {
            options.window = try DurationText.parse(window)
        } catch {
            throw ValidationError("--window \(error.message)")
        }
        options.since = try range.sinceDate
        options.until = try range.untilDate
        return options
    }

    func run() async throws {
        let console = output.console
        var options = try makeOptions()
        let configuration = try await database.resolve(console: console)
        if flow.flow != nil {
            let (definition, _) = try await flow.load(configuration: configuration)
            for case .step(let stepID) in options.metrics where definition.step(stepID) == nil {
                throw ValidationError("flow '\(definition.id)' has no step '\(stepID)'")
            }
            options.flow = definition
        }
        for case .funnel(let flowID) in options.metrics {
            let (definition, _) = try await FlowOptions.parse(["--flow", flowID]).load(configuration: configuration)
            options.expand(funnel: definition)
        }
        let key = key
        options.experiment = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try ExperimentStore().load(key: key, on: connection)
        }
        let prepared = options
        let correction = correction
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: prepared.reader, read: read,
            people: per == .user
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                ExperimentAggregator(options: prepared, correction: correction)
            }
        }
        if report.sampleRatio.mismatch {
            console.status("warning: sample ratio mismatch (p < 0.001); results are not trustworthy")
        }
        try output.emit(rendered: report.rendered, html: report.html)
    }
}

extension ExperimentOptions.Engine: ExpressibleByArgument {}
