import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel compare`: a flow's funnel in two cohorts, with a regression gate for CI.
struct CompareCommand: AsyncParsableCommand {
    /// The exit status when the gate finds a regression (errors exit 1, usage errors 64).
    static let regressionExitCode: Int32 = 3

    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract:
            "Compare a flow's funnel between two cohorts (date ranges or property values); gate regressions in CI.",
        discussion: """
            Cohorts: two date ranges of session start (--a-since/--a-until, --b-since/--b-until; \
            an end may be left open), or two values of a context attribute (--property appVersion \
            --a 2.3 --b 2.4, within --since/--until). Differences are B − A.

            Per step (and for completion): sessions entered, the conversion from the previous step \
            in each cohort (Wilson intervals), the difference with Newcombe's interval, the \
            two-proportion z-test p-value and its Holm adjustment across the rows (--correction bh: Benjamini-Hochberg); the skip-rate \
            change (z-test) and the change of the median time on step with the Mann-Whitney U rank \
            test (normal approximation). Rows where a cohort is too small to detect a drop of the \
            gate's size (else 2 points) at alpha / rows with 80% power are warned about.

            --fail-on-regression PP: exit with status 3 when a step's (or completion's) conversion \
            fell by more than PP percentage points and its Holm-adjusted p-value is below --alpha; \
            the report is printed first. With no change at all, the chance of a false alarm is at \
            most alpha.

            Examples:
              funnel compare --flow health-study --property appVersion --a 2.3 --b 2.4
              funnel compare --flow health-study --a-since 2026-01-01 --a-until 2026-01-15 --b-since 2026-01-15
              funnel compare --flow health-study --property appVersion --a 2.3 --b 2.4 --fail-on-regression 2
            """)

    @OptionGroup var flow: FlowOptions

    @Option(name: .customLong("a-since"), help: "Cohort A: sessions started at or after (ISO 8601).")
    var aSince: String?
    @Option(name: .customLong("a-until"), help: "Cohort A: sessions started before (ISO 8601).")
    var aUntil: String?
    @Option(name: .customLong("b-since"), help: "Cohort B: sessions started at or after (ISO 8601).")
    var bSince: String?
    @Option(name: .customLong("b-until"), help: "Cohort B: sessions started before (ISO 8601).")
    var bUntil: String?

    @Option(help: "A context attribute whose two values (--a, --b) form the cohorts, e.g. appVersion.")
    var property: String?
    @Option(name: .customLong("a"), help: "Cohort A's value of --property.")
    var aValue: String?
    @Option(name: .customLong("b"), help: "Cohort B's value of --property.")
    var bValue: String?

    @Option(
        name: .customLong("fail-on-regression"),
        help: ArgumentHelp(
            "Exit 3 when a step's conversion fell by more than PP percentage points, significantly after Holm.",
            valueName: "PP"))
    var failOnRegression: Double?

    @Option(help: "Significance level after the correction across the rows.")
    var alpha = 0.05

    @Option(
        help: "Multiple-comparison correction across the rows: holm (family-wise error) or bh (false discovery rate).")
    var correction: MultipleComparisonCorrection = .holm

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timing: FunnelTimingOptions

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var read: ReadOptions
    @OptionGroup var output: HTMLOutputOptions

    func validate() throws {
        guard flow.flow != nil else { throw ValidationError("pass --flow FILE|ID") }
        _ = try makeOptions()
    }

    private func makeOptions() throws -> ComparisonOptions {
        let dates = [aSince, aUntil, bSince, bUntil].contains { $0 != nil }
        let values = property != nil || aValue != nil || bValue != nil
        var options: ComparisonOptions
        switch (dates, values) {
        case (true, false):
            let parse = { (text: String?, option: String) in
                try text.map { try TimeRangeOptions.parse($0, option: option) }
            }
            let a = (try parse(aSince, "--a-since"), try parse(aUntil, "--a-until"))
            let b = (try parse(bSince, "--b-since"), try parse(bUntil, "--b-until"))
            for (name, since, until) in [("A", a.0, a.1), ("B", b.0, b.1)] {
                if let since, let until, since >= until {
                    throw ValidationError("cohort \(name): its since must be before its until")
                }
            }
            // Overlapping ranges would count a session in both cohorts.
            let aEnd = a.1 ?? .distantFuture
            let bEnd = b.1 ?? .distantFuture
            if (a.0 ?? .distantPast) < bEnd, (b.0 ?? .distantPast) < aEnd {
                throw ValidationError("the date ranges of cohorts A and B overlap")
            }
            options = ComparisonOptions(a: .started(since: a.0, until: a.1), b: .started(since: b.0, until: b.1))
        case (false, true):
            guard let property, let aValue, let bValue else {
                throw ValidationError("--property needs both --a VALUE and --b VALUE")
            }
            guard aValue != bValue else { throw ValidationError("--a and --b must differ") }
            options = ComparisonOptions(a: .property(property, value: aValue), b: .property(property, value: bValue))
        case (true, true):
            throw ValidationError("use either date ranges (--a-since ...) or --property with --a and --b, not both")
        case (false, false):
            throw ValidationError(
                "name two cohorts: --a-since/--a-until and --b-since/--b-until, or --property NAME --a VALUE --b VALUE")
        }
        if let failOnRegression {
            guard failOnRegression > 0, failOnRegression < 100 else {
                throw ValidationError("--fail-on-regression takes percentage points between 0 and 100, e.g. 2")
            }
            options.regressionThreshold = failOnRegression / 100
        }
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
        options.alpha = alpha
        options.correction = correction
        options.funnel.window = try timing.windowSeconds()
        options.funnel.inactivity = try timing.inactivitySeconds()
        options.funnel.since = try range.sinceDate
        options.funnel.until = try range.untilDate
        return options
    }

    func run() async throws {
        let options = try makeOptions()
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let (definition, _) = try await flow.load(configuration: configuration)
        let reader = options.reader
        let report = try await ReplayProgress.runDeployment(
            configuration: configuration, quiet: output.quiet, reader: reader, read: read
        ) { sharded, progress in
            try await sharded.report(progress: progress.update) {
                ComparisonAggregator(flow: definition, options: options, now: Date())
            }
        }
        for warning in report.warnings { console.status("warning: " + warning) }
        try output.emit(rendered: report.rendered, html: report.html)
        if report.passed == false {
            console.status("regression: " + report.regressions.joined(separator: ", "))
            throw ExitCode(Self.regressionExitCode)
        }
    }
}
