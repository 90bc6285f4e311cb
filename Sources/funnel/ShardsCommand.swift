import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel shards add|list|remove|move`: the shards of the database the user points at (the coordinator).
struct ShardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shards",
        abstract: "Spread events over several PostgreSQL servers (shards) by session.",
        discussion: """
            The database funnel points at (--database-url, DATABASE_URL, ...) becomes the \
            coordinator: it keeps the shard list, flows, experiments and app keys; events and \
            sessions go to the shards. Each session is placed by a hash of its id into one of 64 \
            buckets, and each bucket lives on one shard, so a session never spans shards. funnel \
            ingest, serve and every report then use the shards by themselves, through the \
            coordinator's URL. No shards: a single server, as before. See docs/SCALING.md.

            Examples:
              funnel shards add postgresql://shard1.internal/onboarding
              funnel shards add postgresql://shard2.internal/onboarding
              funnel shards list
              funnel shards move 7 postgresql://shard3.internal/onboarding
              funnel shards remove postgresql://shard3.internal/onboarding
            """,
        subcommands: [Add.self, List.self, Remove.self, Move.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a shard: migrate it and record it.",
            discussion: """
                While no shard holds events yet, the 64 buckets are spread evenly over all shards. \
                Once there is data, a new shard starts empty: give it buckets with `funnel shards move`. \
                Refused when the coordinator holds events of its own, and when the URL reaches \
                the coordinator itself or a database that is already a shard: databases are told \
                apart by the server's system identifier and the database's name, not by the URL.
                """)

        @Argument(help: "The shard's libpq URL or connection string (a password in it is never printed).")
        var url: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let url = url
            let migrator = try MigrationsLocation.migrator(schema.migrationsDirectory)
            let topology = try await ShardsCommand.withCoordinator(database, schema, console) { connection in
                try ShardCatalog().add(url: url, on: connection, migrator: migrator)
            }
            let added = topology.shards.first { $0.url == url }
            console.status(
                "added shard \(PostgresConfiguration.redact(url)) with \(added?.buckets.count ?? 0) of 64 buckets")
            try ShardsCommand.print(topology, output: output)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the shards and their buckets.")

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let topology = try await ShardsCommand.withCoordinator(database, schema, output.console, rebuild: false) {
                try ShardCatalog().load(on: $0)
            }
            try ShardsCommand.print(topology, output: output)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a shard that holds no events; its buckets go to the other shards.")

        @Argument(help: "The shard's URL, as it was added.")
        var url: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let url = url
            let topology = try await ShardsCommand.withCoordinator(database, schema, output.console) {
                try ShardCatalog().remove(url: url, on: $0)
            }
            output.console.status("removed shard \(PostgresConfiguration.redact(url))")
            try ShardsCommand.print(topology, output: output)
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move one bucket's sessions to another shard.",
            discussion: """
                Copies the bucket's events and sessions to the target, checks that the target holds \
                every copied row, points the bucket at it, then deletes them from the old shard (locked \
                against writes meanwhile). Refused, deleting nothing, when the bucket is already on the \
                target or the target is the same database as its shard. Stop writers (serve, ingest) during a move: they \
                route by the topology they started with. A move cut short is finished by running it again.
                """)

        @Argument(help: "The bucket, 0...63 (see `funnel shards list`).")
        var bucket: Int

        @Argument(help: "The URL of the shard to move it to (added before).")
        var url: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let bucket = bucket
            let url = url
            let moved = try await ShardsCommand.withCoordinator(database, schema, output.console) {
                try BucketMover().move(bucket: bucket, to: url, on: $0)
            }
            switch output.format {
            case .json: try output.console.printJSON(moved)
            default:
                output.console.print(
                    "moved bucket \(bucket) (\(moved.events) events, \(moved.sessions) sessions) to "
                        + PostgresConfiguration.redact(url))
            }
        }
    }
}

extension ShardsCommand {
    /// Resolves and migrates the coordinator, runs `body` on a blocking-work thread and, after a
    /// change, rebuilds the coordinator's `sharded.events` view (a warning when postgres_fdw is missing).
    fileprivate static func withCoordinator<T: Sendable>(
        _ database: DatabaseOptions, _ schema: SchemaOptions, _ console: Console, rebuild: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let configuration = try await database.resolve(console: console)
        try await schema.migrate(configuration, console: console)
        return try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            let result = try body(connection)
            if rebuild {
                do {
                    try ShardForeignTables().rebuild(on: connection)
                } catch {
                    console.status("warning: sharded.events (postgres_fdw) not rebuilt: \(error)")
                }
            }
            return result
        }
    }

    /// The topology as a table (URLs redacted) or JSON.
    fileprivate static func print(_ topology: ShardTopology, output: OutputOptions) throws {
        let rows = topology.shards.map { ShardRow(id: $0.id, url: $0.redactedURL, buckets: $0.buckets) }
        let table = TextTable(
            header: ["id", "url", "buckets", "bucket list"],
            rows: rows.map { [String($0.id), $0.url, String($0.buckets.count), BucketRanges.text($0.buckets)] },
            numericColumns: [0, 2])
        switch output.format {
        case .json: try output.console.printJSON(["shards": rows])
        case .csv: output.console.print(table.csv)
        case .markdown: output.console.print(table.markdown)
        case .text:
            output.console.print(
                rows.isEmpty ? "no shards: this database holds the events itself (funnel shards add URL)" : table.text)
        }
    }
}

/// One shard in `funnel shards list --format json`; the URL is redacted.
private struct ShardRow: Encodable {
    var id: Int
    var url: String
    var buckets: [Int]
}

/// Buckets as ranges: `0-3,8,10-12`.
enum BucketRanges {
    static func text(_ buckets: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        let sorted = buckets.sorted()
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            parts.append(end == index ? String(sorted[index]) : "\(sorted[index])-\(sorted[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}
