import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel demo`: records a realistic demo data set and shows what the tool reports about it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Record demo onboarding data (all example scenarios), print the funnel, discovery, experiment and a forecast, write report.html.",
        discussion: """
            Migrates the database (the embedded cluster when none is configured), stores the example \
            flows, generates --sessions sessions across the scenarios of examples/flows with a fixed \
            seed and records their events through the SDK's EventRecorder, then prints the \
            health-study funnel and its completion per day, the feature-discovery summary, the \
            consent-copy experiment and a \
            forecast of the flow without its modules screen (funnel simulate), and writes an HTML \
            report (all of them and conformance) to --output. A second run finds the demo data (the last \
            session of every scenario) and skips recording.
            """)

    @Option(help: "Sessions in total across the scenarios.")
    var sessions = 100_000

    @Option(help: "Seed of the demo data; another seed records another data set.")
    var seed: UInt64 = 2026

    @Option(name: .customLong("output"), help: "The HTML report to write.")
    var outputFile = "report.html"

    @Option(
        name: .customLong("migrations"),
        help: "The folder of migration files (see `funnel migrate`).")
    var migrationsDirectory: String?

    @OptionGroup var database: DatabaseOptions

    @Flag(name: .shortAndLong, help: "Print no progress or status lines on stderr.")
    var quiet = false

    func validate() throws {
        guard sessions >= Self.shares.count else {
            throw ValidationError("--sessions must be at least \(Self.shares.count)")
        }
    }

    /// Each scenario's share of the sessions: the health study (with its experiment) is the
    /// main funnel; the spotlight scenario feeds discovery.
    static let shares: [(scenario: Scenario, share: Double)] = [
        (.healthStudy, 0.4), (.spotlight, 0.25), (.boardCreation, 0.15), (.enterprise, 0.1), (.modularLogin, 0.1),
    ]

    func run() async throws {
        let console = Console(quiet: quiet)
        let started = Date()
        let migrator = try MigrationsLocation.migrator(migrationsDirectory)
        let configuration = try await database.resolve(console: console)
        let plan = try DemoPlan(sessions: sessions, seed: seed, shares: Self.shares)
        let present = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            try migrator.migrate(on: connection) { console.status("applying \($0.fileName)") }
            try plan.storeFlows(on: connection)
            return try plan.isRecorded(on: connection)
        }
        if present {
            console.status("demo data (seed \(seed), \(sessions) sessions) already recorded; skipping recording")
        } else {
            let bar = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) == 1)
            let counters = try await plan.record(into: configuration) { done in
                bar.draw(fraction: Double(done) / Double(plan.total), count: done, unit: "sessions")
            }
            bar.clear()
            console.status(
                "recorded \(counters.committed) events of \(plan.total) sessions"
                    + (counters.duplicates > 0 ? " (\(counters.duplicates) already there)" : "")
                    + String(format: " in %.1f s", Date().timeIntervalSince(started)))
        }
        let reports = try await DemoReports.build(configuration: configuration, quiet: quiet, asOf: plan.periodEnd)
        console.print(try reports.funnel.rendered(.text))
        console.print("")
        console.print(reports.trend.title + "\n\n" + reports.trend.summaryTable.text)
        console.print("")
        console.print(try reports.discovery.rendered(.text))
        console.print("")
        console.print(try reports.experiment.rendered(.text))
        console.print("")
        console.print(reports.forecast.title + "\n\n" + reports.forecast.summaryTable.text)
        if let why = reports.why {
            console.print("")
            console.print(why.summary)
        }
        let whySections: [any HTMLReportSection] =
            reports.why.map { [$0.correlation, $0.paths, $0.retention] } ?? []
        let page = HTMLDocument(
            title: "OnboardMetrics demo report",
            subtitle: "\(plan.total) synthetic sessions across \(Self.shares.count) scenarios (seed \(seed)).",
            sections: [
                reports.funnel, reports.trend, reports.discovery, reports.experiment, reports.forecast,
                reports.conformance,
            ] + whySections)
        try HTMLOutputOptions.write(page.render(), to: outputFile)
        console.status("wrote \(outputFile)" + String(format: " (%.1f s in all)", Date().timeIntervalSince(started)))
        console.print(
            "\nNext, to share these reports in a browser: funnel viewers create NAME (prints the viewer's secret), "
                + "then funnel dashboard (prints its URL)")
    }
}
