import ArgumentParser
import OnboardMetrics

struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Manage the embedded PostgreSQL cluster (used when no database is configured).",
        discussion: """
            The cluster lives under --data-dir (default ./.onboardmetrics/postgres), listens only on \
            a Unix socket inside that folder, and runs as the postgres system user when funnel runs \
            as root. Any funnel command starts it on demand; these subcommands manage it by hand.
            """,
        subcommands: [Start.self, Stop.self, Status.self, URLCommand.self])

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract: "Create the cluster if needed and start it; prints its URL.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let cluster = database.embeddedCluster
            let console = output.console
            _ = try await BlockingIO.run { try cluster.start(progress: { console.status($0) }) }
            console.print(cluster.url)
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the cluster's server.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let cluster = database.embeddedCluster
            let stopped = try await BlockingIO.run { try cluster.stop() }
            output.console.status(
                stopped ? "stopped PostgreSQL in \(cluster.dataDirectory)" : "PostgreSQL was not running")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Say whether the cluster exists and runs; exits 3 when it is not running.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let cluster = database.embeddedCluster
            let state = try await BlockingIO.run { try cluster.state() }
            let report = ClusterStatus(
                state: state.rawValue, dataDirectory: cluster.dataDirectory, socketDirectory: cluster.socketDirectory,
                url: cluster.url)
            switch output.format {
            case .json: try output.console.printJSON(report)
            default:
                output.console.print(
                    TextTable(
                        header: ["state", state.rawValue],
                        rows: [
                            ["data", report.dataDirectory], ["socket", report.socketDirectory], ["url", report.url],
                        ]
                    ).text)
            }
            if state != .running { throw ExitCode(3) }
        }
    }

    struct URLCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url", abstract: "Print the cluster's connection URI (for psql or DATABASE_URL).")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            Console().print(database.embeddedCluster.url)
        }
    }
}

private struct ClusterStatus: Encodable {
    let state: String
    let dataDirectory: String
    let socketDirectory: String
    let url: String
}
