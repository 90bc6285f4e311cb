import ArgumentParser
import Foundation
import OnboardMetrics

extension SessionSource: ExpressibleByArgument {}

/// How a report reads the events: shared by every command that replays sessions.
struct ReadOptions: ParsableArguments {
    @Option(
        name: .customLong("read-connections"),
        help: ArgumentHelp(
            "Connections per server to read sessions on, in parallel.",
            discussion: "Each connection reads a share of the 64 session buckets and replays them on a thread "
                + "of its own; the partial reports are merged (the same report whatever the number). Default: "
                + "one per core of this machine, at most 8 (\(ShardedReader.automaticConnections) here); with "
                + "shards or --citus-workers, one per shard or worker. Use 1 to spare a busy server."))
    var connections: Int?

    @Option(
        help: ArgumentHelp(
            "Only the sessions (or people) of this saved cohort.",
            discussion: "Cohorts are saved by `funnel users ... --save-cohort NAME`: a cohort of sessions keeps "
                + "only those sessions; a cohort of users keeps every session of those people (ids linked by "
                + "identify or alias are one person)."))
    var cohort: String?

    @Flag(
        help: ArgumentHelp(
            "On a Citus coordinator, read the events from the workers directly, in parallel.",
            discussion: "The coordinator's placements say which worker holds which shard of events; each "
                + "worker is read on --read-connections connections of its own (same user, password and "
                + "database as the coordinator's URL, at the host and port the coordinator knows it by) "
                + "and the partial reports are merged, instead of the coordinator gathering and sorting "
                + "every row. Without Citus it changes nothing."))
    var citusWorkers = false

    @Option(
        help: ArgumentHelp(
            "Where sessions are read from: auto, traces or events.",
            discussion: "auto (the default) reads the session traces — a compact copy of each session's events, "
                + "brought up to date first — and falls back to the events where they cannot be used (a database "
                + "not migrated to 0007, a read-only role with sessions awaiting a rebuild, event ids that are not "
                + "UUIDv7). traces insists on them (an error otherwise); events streams every events row, as "
                + "before. The results are the same; `funnel verify` checks the traces."))
    var source: SessionSource = .automatic

    @Option(
        name: .customLong("session-files"),
        help: ArgumentHelp(
            "The folder where reports keep the sessions between runs, or off.",
            discussion: "A report reads the sessions from a compact file there (about 16 bytes an event), after "
                + "bringing it up to date from the session traces written and removed since it was written, instead "
                + "of reading every trace from PostgreSQL; it writes the file back once the changes come to 2 % of it "
                + "(until then each report reads those few traces again; the first report writes it whole, and "
                + "costs more than reading the traces). Used with a single server and "
                + "--source auto or traces; with --since/--until the sessions with events on both sides of a bound "
                + "are read from their traces, and a report with --since does not write a file that is not there. "
                + "The results are the same. The files hold user ids and properties: the folder is made readable by "
                + "you alone, and a file or folder others could write is not used. Warnings about the files go to "
                + "stderr even with --quiet. Default: $ONBOARDMETRICS_CACHE_DIR/sessions, else "
                + "$XDG_CACHE_HOME/onboardmetrics/sessions, else ~/.cache/onboardmetrics/sessions. off reads "
                + "PostgreSQL every time.",
            valueName: "folder"))
    var sessionFiles: String?

    /// Where reports keep their session files (nil: off).
    func sessionFileStore() -> SessionFileStore? {
        let folder: URL?
        switch sessionFiles {
        case "off"?: folder = nil
        case let path?: folder = URL(fileURLWithPath: path)
        case nil: folder = SessionFileStore.defaultDirectory()
        }
        return folder.map { folder in
            SessionFileStore(directory: folder) { warning in
                FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
            }
        }
    }

    func validate() throws {
        if sessionFiles?.isEmpty == true { throw ValidationError("--session-files needs a folder, or off") }
        if let connections, !(1...64).contains(connections) {
            throw ValidationError("--read-connections must be 1...64")
        }
    }
}
