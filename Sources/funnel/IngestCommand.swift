import ArgumentParser
import Foundation
import OnboardMetrics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Load event files (JSONL, or CSV clickstream exports) into the events table.",
        discussion: """
            Input format: --input-format jsonl|csv; by default a file is CSV when --map \
            options are given or its name ends in .csv, else JSONL. --format is, as for every \
            command, the format of the printed summary (text, json, csv, markdown): so \
            `funnel ingest --format csv --map ... FILE` reads FILE as CSV (because of --map) and \
            prints the summary as CSV.

            JSONL: one event per line in the event format (keys event_id, session_id, user_id, seq, \
            kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, \
            properties). A key outside the format rejects the line.

            CSV: a header row, then one event per row (RFC 4180 quoting). Map columns with \
            --map user_id=COL --map session_id=COL --map event=COL --map occurred_at=COL and \
            optionally step=COL, flow_id=COL, name=COL; other non-empty columns become string \
            properties. An event value of the vocabulary (step_viewed, ...) is that kind, any other \
            is a custom event with that name. A session value that is not a UUID gets a stable \
            UUID derived from it; seq is the row's position in its session; event ids are derived \
            from the row's content, so ingesting the same file again adds nothing.

            Segment and PostHog exports (--input-format segment|posthog): one JSON object per line, a \
            Segment message (track, screen, page, identify...; Segment's archive lines) or a PostHog \
            event (its event export), turned into onboarding events by the naming convention or \
            --mapping FILE as `funnel serve` does (README, "Use your existing analytics SDK"); \
            messageId / uuid give the stable event ids, so ingesting a file again adds nothing.

            Timestamps: ISO 8601 (2026-01-31T09:15:02.125Z, +01:00 offsets) or \
            YYYY-MM-DD HH:MM:SS[.fff]; without a zone, in --timezone (default UTC).

            Each bad line is reported as FILE:LINE: reason on stderr (the first 20; all with -v) and \
            written to the rejects file (default FILE.rejects beside each input) as a \
            `# FILE:LINE: reason` line followed by the line itself. A rejects file of an earlier run at \
            that path is replaced; any other file there (an input, anything not starting with such a \
            line) is refused and left as it is. Good lines always land, in transactions of \
            --batch-size events. Duplicates (same event_id) are dropped and counted. Runs the \
            migrations first, so a fresh database works. Exits 0 even when lines were rejected; \
            the summary says how many.

            Traces: reports read each session from a compact trace (`funnel verify`), rebuilt \
            from the events after a write. After a small load (at most --trace-build-limit \
            sessions awaiting, default 20000) ingest builds them before it exits, so the next \
            report only reads them: a session whose events all came in this ingest is encoded \
            from the events it still holds (up to 12 events a session of the limit), any other \
            is read back from the table. After a bulk load the first report builds them all. \
            --trace-build-limit 0 leaves every build to the first report: the ingest is quicker by \
            the build, and that report slower by more, since it reads the events back. The \
            summary says how many were built and how long it took (JSON traces_built, \
            trace_seconds). A role that may not write the traces leaves them to the reports.

            Shards (`funnel shards`): each batch goes to the shards of its sessions. The part of a \
            shard that is down waits in a spool (--spool-dir; by default one per coordinator \
            database under ONBOARDMETRICS_STATE_DIR, else $XDG_STATE_HOME/onboardmetrics, else \
            ~/.local/state/onboardmetrics, so the next ingest drains it from whatever folder it \
            runs in), the summary says how many events wait for which shard, and funnel exits 75 \
            while any wait. Once the shard is back, any sharded ingest drains the spool first; \
            `funnel ingest` without files only drains it.
            """)

    @Argument(help: "The files to ingest (none: only drain the spool of a sharded database).")
    var files: [String] = []

    @Option(
        help: ArgumentHelp(
            "Sharded database: the spool folder for shards that are down (default: per coordinator, under the state folder).",
            valueName: "dir"))
    var spoolDir: String?

    @Option(help: "Input format: jsonl, csv, segment or posthog (default: by --map and file name).")
    var inputFormat: IngestOptions.Format?

    @Option(
        help: ArgumentHelp(
            "For segment and posthog input: a JSON file mapping event and screen names to onboarding events.",
            valueName: "file"))
    var mapping: String?

    @Option(
        help: ArgumentHelp("Map an event field to a CSV column: FIELD=COLUMN (repeatable).", valueName: "FIELD=COLUMN"))
    var map: [String] = []

    @Option(help: "Time zone of timestamps without one, e.g. Europe/Berlin or +02:00 (default UTC).")
    var timezone: String?

    @Option(
        help: ArgumentHelp("One rejects file for all inputs (default: FILE.rejects beside each).", valueName: "path"))
    var rejects: String?

    @Option(
        help: """
            Events per transaction (default 20000; a small load is then cut smaller, so every write \
            connection gets two batches or more). Given, every batch is this size: one batch lies \
            in the table in event-id order.
            """)
    var batchSize: Int?

    @Option(
        help: ArgumentHelp(
            "Connections writing batches at once (one copies while another commits).", valueName: "n"))
    var writeConnections = 2

    @Option(
        help: ArgumentHelp(
            "After the load, build the traces reports read when at most this many sessions await them (0: leave them all to the first report).",
            valueName: "sessions"))
    var traceBuildLimit = Self.defaultTraceBuildLimit

    @Flag(name: .shortAndLong, help: "Report every rejected line on stderr, not only the first 20.")
    var verbose = false

    @OptionGroup var schema: SchemaOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let spoolDir, spoolDir.isEmpty { throw ValidationError("--spool-dir must not be empty") }
        if inputFormat == .jsonl, !map.isEmpty { throw ValidationError("--map applies to CSV input only") }
        if inputFormat == .csv, map.isEmpty { throw ValidationError("CSV input needs --map options") }
        if inputFormat == .segment || inputFormat == .posthog, !map.isEmpty {
            throw ValidationError("--map applies to CSV input only")
        }
        if mapping != nil, inputFormat != .segment, inputFormat != .posthog {
            throw ValidationError("--mapping applies to --input-format segment or posthog")
        }
        if let batchSize, batchSize <= 0 { throw ValidationError("--batch-size must be positive") }
        guard traceBuildLimit >= 0 else { throw ValidationError("--trace-build-limit must not be negative") }
        guard (1...64).contains(writeConnections) else {
            throw ValidationError("--write-connections must be between 1 and 64")
        }
        do { _ = try makeOptions() } catch let error as IngestError {
            throw ValidationError(error.message)
        } catch is EventMappingError {
            // Left to run(): a mapping file that cannot be used is bad data (exit 65), not usage.
        }
        // Checked before anything is read, so a mistyped path never replaces an input.
        for rejectsPath in rejects.map({ [$0] }) ?? files.map({ $0 + ".rejects" }) {
            if let input = files.first(where: { IngestPaths.sameFile($0, rejectsPath) }) {
                throw ValidationError(
                    "the rejects file \(rejectsPath) is the input \(input); choose another --rejects path")
            }
        }
    }

    private func makeOptions() throws -> IngestOptions {
        var options = IngestOptions(
            format: inputFormat, mapping: map.isEmpty ? nil : try ColumnMapping(specifications: map),
            timeZone: try Self.timeZone(timezone), rejectsPath: rejects, batchSize: batchSize ?? 20_000,
            writeConnections: writeConnections)
        if let mapping { options.eventMapping = try EventMapping(contentsOf: mapping) }
        options.adaptsBatchSize = batchSize == nil
        return options
    }

    func run() async throws {
        let console = output.console
        let options = try makeOptions()
        let configuration = try await database.resolve(console: console)
        // The shards are read on the migrations' connection.
        let topology = try await schema.migrate(configuration, console: console) { try ShardCatalog().load(on: $0) }

        let bar = ProgressBar(enabled: !output.quiet && isatty(STDERR_FILENO) == 1)
        let reporter = RejectReporter(console: console, limit: verbose ? .max : 20, bar: bar)
        var summary: IngestSummary
        var stored: StoredSessions?
        do {
            var ingester = EventIngester(options: options)
            if topology.isSharded {
                // A shard that is down gets its part spooled in a folder of the coordinator's own,
                // outside the current folder: the next ingest drains it wherever it runs.
                let spool: String
                if let spoolDir {
                    spool = spoolDir
                } else {
                    spool = try await BlockingIO.run {
                        IngestSpoolFolder.default(for: try DatabaseIdentity.of(configuration))
                    }
                }
                ingester.shards = ShardedIngestSettings(topology: topology, spoolDirectory: spool)
            } else if files.isEmpty {
                throw ValidationError("no files to ingest (without files, ingest only drains the spool of shards)")
            }
            if !topology.isSharded {
                // Enough for the sessions the build takes (about 12 events a session in the generator's
                // data); a limit too large to multiply keeps everything.
                let (events, overflow) = traceBuildLimit.multipliedReportingOverflow(by: Self.storedEventsPerSession)
                ingester.storedEventsLimit = overflow ? Int.max : events
            }
            (summary, stored) = try await ingester.ingestKeeping(
                files, into: configuration, progress: { bar.update($0) }, rejected: { reporter.report($0) })
        } catch {
            bar.clear()
            throw error
        }
        bar.clear()
        reporter.finish(rejectsFiles: summary.files.compactMap(\.rejectsFile))
        if summary.inserted > 0 {
            // Not on a shard that is down: its events wait in the spool.
            let down = Set(summary.spool?.waiting.map(\.shard) ?? [])
            let targets =
                topology.isSharded
                ? topology.shards.filter { !down.contains($0.id) }.map(\.configuration) : [configuration]
            (summary.tracesBuilt, summary.traceSeconds) = await buildTraces(
                in: targets, stored: topology.isSharded ? nil : stored, console: console)
        }
        printSummary(summary, console: console)
        if let spool = summary.spool, !spool.waiting.isEmpty {
            // Said even with --quiet: the job is not done until these land.
            let shards = spool.waiting.map { "\($0.events) for shard \($0.shard)" }.joined(separator: ", ")
            FileHandle.standardError.write(
                Data(
                    ("funnel: \(spool.waitingEvents) events wait in the spool \(spool.directory) (\(shards)): "
                        + "that shard is down. Run `funnel ingest` again (no files needed) once it is back.\n").utf8))
            throw ExitCode(ExitStatus.waiting)
        }
    }

    private func printSummary(_ summary: IngestSummary, console: Console) {
        let header = ["file", "lines_read", "inserted", "duplicates", "rejected", "seconds", "events_per_second"]
        var rows = summary.files.map {
            [$0.path, String($0.linesRead), String($0.inserted), String($0.duplicates), String($0.rejected), "", ""]
        }
        rows.append([
            "total", String(summary.linesRead), String(summary.inserted), String(summary.duplicates),
            String(summary.rejected), String(format: "%.3f", summary.seconds),
            String(format: "%.0f", summary.eventsPerSecond),
        ])
        switch output.format {
        case .json:
            do { try console.printJSON(summary) } catch { console.status("cannot encode the summary: \(error)") }
        case .csv: console.print(TextTable(header: header, rows: rows).csv)
        case .markdown: console.print(TextTable(header: header, rows: rows).markdown)
        case .text:
            var line =
                "read \(summary.linesRead) lines: \(summary.inserted) inserted, \(summary.duplicates) duplicates, "
                + "\(summary.rejected) rejected"
            if let spool = summary.spool, spool.spooled + spool.drained + spool.waitingEvents > 0 {
                line +=
                    ", \(spool.spooled) spooled for shards that are down, \(spool.drained) drained from the spool, "
                    + "\(spool.waitingEvents) waiting"
            }
            line +=
                " in \(String(format: "%.2f", summary.seconds)) s "
                + "(\(String(format: "%.0f", summary.eventsPerSecond)) events/s)"
            if let built = summary.tracesBuilt, built > 0, let seconds = summary.traceSeconds {
                line += "; traces of \(built) sessions built in \(String(format: "%.2f", seconds)) s"
            }
            console.print(line)
        }
    }

    /// `UTC`, an IANA name, an abbreviation, or an offset such as `+02:00`.
    static func timeZone(_ name: String?) throws -> TimeZone {
        let utc = TimeZone(secondsFromGMT: 0) ?? .current
        guard let name, !name.isEmpty else { return utc }
        if let zone = TimeZone(identifier: name) ?? TimeZone(abbreviation: name) { return zone }
        let parser = IngestTimeZoneOffset(name)
        if let seconds = parser.seconds, let zone = TimeZone(secondsFromGMT: seconds) { return zone }
        throw IngestError(.timeZone, "--timezone \(name): not a time zone (use e.g. UTC, Europe/Berlin or +02:00)")
    }
}

extension IngestOptions.Format: ExpressibleByArgument {}

/// Parses `+HH:MM`, `-HHMM` or `+HH` into seconds east of UTC.
private struct IngestTimeZoneOffset {
    let seconds: Int?

    init(_ text: String) {
        let characters = Array(text)
        guard let sign = characters.first, sign == "+" || sign == "-" else {
            seconds = nil
            return
        }
        let digits = characters.dropFirst().filter { $0 != ":" }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy(\.isASCII), let value = Int(String(digits))
        else {
            seconds = nil
            return
        }
        let hours = digits.count == 2 ? value : value / 100
        let minutes = digits.count == 2 ? 0 : value % 100
        guard hours < 24, minutes < 60 else {
            seconds = nil
            return
        }
        seconds = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
