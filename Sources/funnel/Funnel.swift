import ArgumentParser
import OnboardMetrics

/// The `funnel` command-line tool: records, migrates and analyses onboarding events.
@main
struct Funnel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "Onboarding analytics on PostgreSQL: record, replay and report onboarding funnels.",
        discussion: """
            With no database configured (no --database-url, DATABASE_URL or PG* variables), every \
            command uses an embedded PostgreSQL cluster under ./.onboardmetrics/postgres, created \
            and started on first use.
            """,
        version: OnboardMetricsVersion.current,
        subcommands: [
            MigrateCommand.self,
            ShardsCommand.self,
            DatabaseCommand.self,
            IngestCommand.self,
            ReorderCommand.self,
            VerifyCommand.self,
            GenerateCommand.self,
            ReportCommand.self,
            TrendsCommand.self,
            RetentionCommand.self,
            PathsCommand.self,
            UsersCommand.self,
            CompareCommand.self,
            ConformanceCommand.self,
            DiscoveryCommand.self,
            CorrelateCommand.self,
            AssignCommand.self,
            ExperimentCommand.self,
            SimulateCommand.self,
            ServeCommand.self,
            KeysCommand.self,
            DashboardCommand.self,
            ViewersCommand.self,
            DemoCommand.self,
        ]
    )
}
