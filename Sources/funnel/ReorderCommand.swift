import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel reorder`: rewrites the event partitions in event-id order, so reports read them sequentially.
struct ReorderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reorder",
        abstract: "Rewrite the events table in event-id order, so that reports read it sequentially.",
        discussion: """
            Reports read events in event-id order (an index scan of each monthly partition). Rows \
            bulk-loaded with `funnel ingest` lie in the table in file order, session by session, so \
            that read visits a table page per row. This command runs CLUSTER on each partition of \
            events with its primary-key index (the default partition too), then ANALYZE, one \
            partition at a time, and prints what it did: rows and size before and after per \
            partition. No row changes, so no report's result changes. On a sharded coordinator it \
            does the same on every shard, after the coordinator. On a Citus coordinator it does it \
            on each worker, to the shards of every partition placed there (the coordinator's \
            partitions hold no rows); the shard column names the worker.

            A partition already in order is left as it is. Before rewriting one, the command \
            follows 64 short runs of rows in event-id order from a sample of the partition and \
            counts how often the next row lies on another table page: about 0.02 a row when the \
            table is in order, 0.5 to 1 for a file's rows. Partitions at or below 0.1 switches a \
            row are skipped (--all rewrites them too). The measure takes milliseconds.

            When: after bulk-loading history with `funnel ingest`. Events recorded live by the \
            collector or the recorder arrive close to event-id order already (0.04 to 0.05 switches a row \
            measured, late events included), so their partitions are skipped; running it again \
            later does no harm.

            Cost: CLUSTER holds an ACCESS EXCLUSIVE lock on the partition it rewrites: reads and \
            writes of that partition wait until it is done (the recorder and `funnel serve` queue \
            their batches meanwhile), and it first waits for reads already running on it. It needs \
            free disk of about the partition's size (the new copy is written before the old one \
            is dropped). It must run as the owner of events (the role that ran `funnel migrate`) \
            or a superuser.

            Measured (BENCHMARKS.md, scripts/bench-report-order.sh): on 10M ingested events \
            this command took 33 s, and a report went from 1.55x to 1.30x the time of a binary \
            export of every column (16.5 s to 13.4 s), with identical results.

            Progress goes to stderr, one line per partition; the summary to stdout (--format \
            json: stable keys, one entry per partition, with "reordered" and \
            "page_switches_per_row", absent for an empty partition). Exit status: 0 done, 69 the database \
            cannot be reached, 1 an error PostgreSQL reported (e.g. not the owner of events): the \
            partitions done before it stay done.

            Examples:
              funnel ingest history.jsonl && funnel reorder
              funnel reorder --database-url postgresql://me@db.internal/analytics
              funnel reorder --quiet --format json
              funnel reorder --all                  # rewrite partitions already in order too
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Rewrite every partition, also those already in event-id order.")
    var all = false

    func run() async throws {
        let console = output.console
        let configuration = try await database.resolve(console: console)
        let reorderer = all ? EventReorderer(maximumPageSwitchesPerRow: nil) : EventReorderer()
        let summary = try await BlockingIO.run {
            try reorderer.reorderDeployment(configuration) { progress in
                let partition = progress.partition
                // A sharded coordinator's own partitions come first, then each shard's.
                if progress.position == 1, let shard = partition.shard { console.status("shard \(shard):") }
                let place = "\(partition.name) (\(progress.position)/\(progress.count))"
                if partition.reordered {
                    console.status(
                        "reordered \(place): \(partition.rows) rows, "
                            + "\(Self.size(partition.bytesBefore)) -> \(Self.size(partition.bytesAfter)) "
                            + "in \(String(format: "%.2f", partition.seconds)) s")
                } else if let switches = partition.pageSwitchesPerRow {
                    console.status(
                        "skipped \(place): in order already, \(String(format: "%.3f", switches)) page switches a row")
                } else {
                    console.status("skipped \(place): empty")
                }
            }
        }
        try printSummary(summary, console: console)
    }

    private func printSummary(_ summary: ReorderSummary, console: Console) throws {
        let sharded = summary.partitions.contains { $0.shard != nil }
        var header = sharded ? ["shard"] : []
        header += [
            "partition", "index", "reordered", "page_switches_per_row", "rows", "bytes_before", "bytes_after",
            "seconds",
        ]
        let rows = summary.partitions.map { partition in
            (sharded ? [partition.shard ?? "coordinator"] : [])
                + [
                    partition.name, partition.index, partition.reordered ? "yes" : "no",
                    partition.pageSwitchesPerRow.map { String(format: "%.3f", $0) } ?? "",
                    String(partition.rows), String(partition.bytesBefore), String(partition.bytesAfter),
                    String(format: "%.3f", partition.seconds),
                ]
        }
        let offset = sharded ? 1 : 0
        let table = TextTable(header: header, rows: rows, numericColumns: Set((offset + 3)..<header.count))
        switch output.format {
        case .json: try console.printJSON(summary)
        case .csv: console.print(table.csv)
        case .markdown: console.print(table.markdown)
        case .text:
            console.print(table.text)
            let count = summary.partitions.count
            console.print(
                "reordered \(summary.reorderedCount) of \(count) partition\(count == 1 ? "" : "s") "
                    + "(\(summary.rows) rows) in \(String(format: "%.2f", summary.seconds)) s; "
                    + "\(Self.size(summary.bytesBefore)) -> \(Self.size(summary.bytesAfter))")
        }
    }

    /// `bytes` in kB, MB or GB (powers of 1024, as PostgreSQL's pg_size_pretty).
    private static func size(_ bytes: Int) -> String {
        let value = Double(bytes)
        if value < 1_048_576 { return String(format: "%.0f kB", value / 1024) }
        if value < 1_073_741_824 { return String(format: "%.1f MB", value / 1_048_576) }
        return String(format: "%.2f GB", value / 1_073_741_824)
    }
}
