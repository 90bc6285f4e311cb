import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel keys create|list|revoke`: the app keys `funnel serve` accepts.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the app keys the HTTP collector (funnel serve) accepts.",
        discussion: """
            Apps send a key as `Authorization: Bearer KEY`. Only the key's SHA-256 is stored: \
            `create` prints the key once, and it cannot be shown again. A running server takes new \
            keys within a second and refuses revoked ones within 5 seconds.
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a key and print it (the only time it is shown).")

        @Argument(help: "What the key is for, e.g. \"ios-app production\".")
        var name: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let name = name
            let created = try await KeysCommand.withStore(database, schema, console) { store, connection in
                try store.create(name: name, on: connection)
            }
            switch output.format {
            case .json: try console.printJSON(CreatedKey(key: created.key, secret: created.secret))
            default:
                console.print(created.secret)
                console.status(
                    "created key \(created.key.id) (\(created.key.name)); store it now: it is not shown again")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the keys, revoked ones included.")

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let keys = try await KeysCommand.withStore(database, schema, console) { store, connection in
                try store.list(on: connection)
            }
            let formatter = ISO8601DateFormatter()
            let table = TextTable(
                header: ["id", "name", "prefix", "created_at", "revoked_at"],
                rows: keys.map {
                    [
                        String($0.id), KeysCommand.printable($0.name), $0.prefix, formatter.string(from: $0.createdAt),
                        $0.revokedAt.map(formatter.string(from:)) ?? "",
                    ]
                })
            switch output.format {
            case .json: try console.printJSON(["keys": keys])
            case .csv: console.print(table.csv)
            case .markdown: console.print(table.markdown)
            case .text: console.print(keys.isEmpty ? "no app keys (funnel keys create NAME makes one)" : table.text)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a key by id, prefix or the key itself; requests with it get 401 within 5 seconds.")

        @Argument(
            help: "The key's id or prefix, as `funnel keys list` shows them, or the whole key (never printed back).")
        var key: String

        @OptionGroup var schema: SchemaOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = output.console
            let reference = key
            let revoked = try await KeysCommand.withStore(database, schema, console) { store, connection in
                try store.revoke(reference, on: connection)
            }
            switch output.format {
            case .json: try console.printJSON(revoked)
            default:
                console.print("revoked key \(revoked.id) (\(KeysCommand.printable(revoked.name)), \(revoked.prefix)…)")
            }
        }
    }
}

extension KeysCommand {
    /// A key name as terminals may show it: control characters (from keys made before names were
    /// checked) escaped, so a name cannot move the cursor or forge lines.
    static func printable(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return name }
        return String(name.debugDescription.dropFirst().dropLast())
    }

    /// Resolves and migrates the database, then runs `body` with the key store and a connection
    /// on a blocking-work thread.
    fileprivate static func withStore<T: Sendable>(
        _ database: DatabaseOptions, _ schema: SchemaOptions, _ console: Console,
        _ body: @escaping @Sendable (AppKeyStore, PostgresConnection) throws -> T
    ) async throws -> T {
        let configuration = try await database.resolve(console: console)
        try await schema.migrate(configuration, console: console)
        return try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try body(AppKeyStore(), connection)
        }
    }
}

/// `funnel keys create --format json`.
private struct CreatedKey: Encodable {
    var key: AppKey
    var secret: String
}
