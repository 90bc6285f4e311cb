import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel viewers create|list|revoke`: who may read `funnel dashboard`.
struct ViewersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewers",
        abstract: "Manage the viewers who may read the web dashboard (funnel dashboard).",
        discussion: """
            A viewer signs in with its name and a secret. Only a bcrypt hash of the secret is \
            stored: `create` prints the secret once, alone on the last line of stdout, and it \
            cannot be shown again. A running dashboard refuses a revoked viewer within a minute. \
            App keys (funnel keys) are for apps and never open the dashboard.
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a viewer and print its secret (the only time it is shown).")

        @Argument(help: "The name the viewer signs in with, e.g. \"ana\" (no colon).")
        var name: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let name = name
            let created = try await ViewersCommand.withStore(database, schema, console) { store, connection in
                try store.create(name: name, on: connection)
            }
            switch output.format {
            case .json: try console.printJSON(CreatedViewer(viewer: created.viewer, secret: created.secret))
            default:
                console.status(
                    "created viewer \(KeysCommand.printable(created.viewer.name)); store the secret below now: "
                        + "it is not shown again")
                console.print(created.secret)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the viewers, revoked ones included.")

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let viewers = try await ViewersCommand.withStore(database, schema, console) { store, connection in
                try store.list(on: connection)
            }
            let formatter = ISO8601DateFormatter()
            let table = TextTable(
                header: ["id", "name", "created_at", "revoked_at"],
                rows: viewers.map {
                    [
                        String($0.id), KeysCommand.printable($0.name), formatter.string(from: $0.createdAt),
                        $0.revokedAt.map(formatter.string(from:)) ?? "",
                    ]
                })
            switch output.format {
            case .json: try console.printJSON(["viewers": viewers])
            case .csv: console.print(table.csv)
            case .markdown: console.print(table.markdown)
            case .text:
                console.print(viewers.isEmpty ? "no viewers (funnel viewers create NAME makes one)" : table.text)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a viewer by name; the dashboard refuses it within a minute.")

        @Argument(help: "The viewer's name, as `funnel viewers list` shows it.")
        var name: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let name = name
            let revoked = try await ViewersCommand.withStore(database, schema, console) { store, connection in
                try store.revoke(name, on: connection)
            }
            switch output.format {
            case .json: try console.printJSON(revoked)
            default: console.print("revoked viewer \(revoked.id) (\(KeysCommand.printable(revoked.name)))")
            }
        }
    }

    /// Resolves and migrates the database, then runs `body` with the viewer store and a connection
    /// on a blocking-work thread (bcrypt and libpq block).
    fileprivate static func withStore<T: Sendable>(
        _ database: DatabaseOptions, _ schema: SchemaOptions, _ console: Console,
        _ body: @escaping @Sendable (ViewerStore, PostgresConnection) throws -> T
    ) async throws -> T {
        let configuration = try await database.resolve(console: console)
        try await schema.migrate(configuration, console: console)
        return try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try body(ViewerStore(), connection)
        }
    }
}

/// `funnel viewers create --format json`.
private struct CreatedViewer: Encodable {
    var viewer: Viewer
    var secret: String
}
