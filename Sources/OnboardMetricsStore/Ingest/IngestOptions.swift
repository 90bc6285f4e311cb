import Foundation
import OnboardMetricsFormats

/// How ``EventIngester`` reads its files.
public struct IngestOptions: Sendable {
    /// An input format.
    public enum Format: String, Sendable, CaseIterable, Codable {
        /// One event per line in the JSONL event format.
        case jsonl
        /// A CSV export with a header row, read through a ``ColumnMapping``.
        case csv
        /// One Segment message per line (Segment's S3/warehouse archives), through the event mapping.
        case segment
        /// One PostHog event per line (PostHog's event export), through the event mapping.
        case posthog

        /// The format a file name suggests: `.csv` is CSV, anything else JSONL.
        public static func detect(path: String) -> Format {
            path.lowercased().hasSuffix(".csv") ? .csv : .jsonl
        }
    }

    /// The input format; nil: CSV when a mapping is given, else by file name (``Format/detect(path:)``).
    public var format: Format?
    /// The column mapping for CSV input.
    public var mapping: ColumnMapping?
    /// The zone of timestamps that carry none.
    public var timeZone: TimeZone
    /// One rejects file for all inputs; nil: `FILE.rejects` beside each input.
    public var rejectsPath: String?
    /// Events per database transaction. Large batches amortize the commit and the COPY start;
    /// 20,000 events are a few megabytes, so two in flight keep memory small.
    public var batchSize: Int
    /// Database connections writing batches at once. With two, one batch is copied while the
    /// other commits and the next is prepared, so the server is never idle between batches;
    /// batches are copied in event-id order, so writers of overlapping ids cannot deadlock.
    public var writeConnections: Int
    /// The clock reading events are validated against (nil: the time the ingest starts).
    public var now: Date?
    /// How Segment and PostHog lines become onboarding events (the naming convention unless set).
    package var eventMapping = EventMapping()
    /// Whether a small load is cut into smaller batches than ``batchSize``, so that every writing
    /// connection gets two or more (`funnel ingest` without `--batch-size`). Batches from two
    /// connections then interleave in the table's pages, where one batch would lie in id order.
    package var adaptsBatchSize = false

    /// Creates options.
    public init(
        format: Format? = nil, mapping: ColumnMapping? = nil,
        timeZone: TimeZone = TimeZone(secondsFromGMT: 0) ?? .current, rejectsPath: String? = nil,
        batchSize: Int = 20_000, writeConnections: Int = 2, now: Date? = nil
    ) {
        self.format = format
        self.mapping = mapping
        self.timeZone = timeZone
        self.rejectsPath = rejectsPath
        self.batchSize = batchSize
        self.writeConnections = writeConnections
        self.now = now
    }

    /// The format of the file at `path`.
    public func format(of path: String) -> Format {
        format ?? (mapping != nil ? .csv : .detect(path: path))
    }
}
