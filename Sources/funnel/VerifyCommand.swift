import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel verify`: checks (or rebuilds) the session traces reports read against the events.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the session traces that reports read against the events they derive from.",
        discussion: """
            Reports read sessions from session_traces, a compact copy of each session's events rows \
            (migration 0006) kept up to date without the writers' help: a trigger on events marks \
            the sessions each insert, COPY, update or delete touches, and the next report rebuilds \
            those from events before it reads. A report from the traces equals one from the events \
            byte for byte; `--source events` on any report reads the events instead.

            This command checks that contract on the stored data: for every session it encodes the \
            events rows as they are now and compares the result with the stored trace (a 64-bit \
            hash of each, so memory stays small). It lists \
            sessions whose trace differs, sessions with events but no trace, and traces whose \
            events are gone. Sessions awaiting a rebuild are only counted (the next report brings \
            them up to date). It reads everything once in one snapshot, about as long as a report \
            from the events. On a sharded coordinator it checks every shard, after the coordinator.

            --rebuild drops every trace and builds them all again from the events (what the first \
            report after `funnel migrate` does on a database with events already in it), then checks.

            Output: a summary per database (--format json: stable keys, the session ids in full). \
            Exit status: 0 the traces match, 3 a mismatch was found (run with --rebuild to repair), \
            69 the database cannot be reached, 1 an error PostgreSQL reported (e.g. a database not \
            migrated to 0007: run `funnel migrate`).

            Examples:
              funnel verify
              funnel verify --rebuild
              funnel verify --format json --database-url postgresql://me@db.internal/analytics
            """)

    /// The exit status when traces and events disagree.
    static let mismatchExitCode: Int32 = 3

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Drop every session trace and build them all again from the events, then check.")
    var rebuild = false

    /// One database's result, as printed.
    struct Entry: Encodable {
        var database: String
        var rebuilt: Int?
        var result: TraceVerifier.Result
        var consistent: Bool
    }

    func run() async throws {
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let rebuild = rebuild
        let entries = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            var targets = [("coordinator", configuration)]
            let topology = try ShardCatalog().loadIfMigrated(on: connection)
            targets += topology.shards.map { ("shard \($0.id) (\($0.redactedURL))", $0.configuration) }
            return try targets.map { name, target in
                let connection = try PostgresConnection(configuration: target)
                defer { connection.close() }
                let verifier = TraceVerifier()
                guard try verifier.isAvailable(on: connection) else {
                    throw PostgresError(.server, "\(name) has no session traces: run `funnel migrate`")
                }
                var rebuilt: Int?
                if rebuild {
                    console.status("\(name): rebuilding session traces")
                    rebuilt = try verifier.rebuild(on: connection)
                }
                console.status("\(name): checking session traces")
                let result = try verifier.verify(on: connection)
                return Entry(database: name, rebuilt: rebuilt, result: result, consistent: result.isConsistent)
            }
        }
        try print(entries, console: console)
        if entries.contains(where: { !$0.consistent }) { throw ExitCode(Self.mismatchExitCode) }
    }

    private func print(_ entries: [Entry], console: Console) throws {
        let header = ["database", "sessions", "traces", "pending", "differing", "missing", "orphaned", "rebuilt"]
        let rows = entries.map { entry in
            let result = entry.result
            return [
                entry.database, String(result.sessions), String(result.traces), String(result.pending),
                String(result.differing.count), String(result.missing.count), String(result.orphaned.count),
                entry.rebuilt.map(String.init) ?? "",
            ]
        }
        let table = TextTable(header: header, rows: rows, numericColumns: Set(1..<header.count))
        switch output.format {
        case .json: try console.printJSON(entries)
        case .csv: console.print(table.csv)
        case .markdown: console.print(table.markdown)
        case .text:
            console.print(table.text)
            for entry in entries {
                let result = entry.result
                for (label, ids) in [
                    ("differs", result.differing), ("has no trace", result.missing),
                    ("trace without events", result.orphaned),
                ] {
                    for id in ids.prefix(20) {
                        console.print("\(entry.database): session \(id.uuidString.lowercased()) \(label)")
                    }
                    if ids.count > 20 {
                        console.print("\(entry.database): ... and \(ids.count - 20) more that \(label)")
                    }
                }
                console.print(
                    "\(entry.database): "
                        + (entry.consistent
                            ? "session traces match the events"
                            : "session traces do NOT match the events: run `funnel verify --rebuild`"))
            }
        }
    }
}
