/// What an ingest did, in total and per file. Its JSON keys are stable (snake_case).
public struct IngestSummary: Sendable, Hashable, Codable {
    /// What was done with one file.
    public struct File: Sendable, Hashable, Codable {
        /// The file's path as given.
        public var path: String
        /// Its format.
        public var format: IngestOptions.Format
        /// Records read (non-blank lines; for CSV, rows after the header).
        public var linesRead: Int = 0
        /// Events newly stored.
        public var inserted: Int = 0
        /// Events already stored (same `event_id`), dropped.
        public var duplicates: Int = 0
        /// Lines rejected.
        public var rejected: Int = 0
        /// Where rejected lines were written, if any were.
        public var rejectsFile: String?

        enum CodingKeys: String, CodingKey {
            case path, format, inserted, duplicates, rejected
            case linesRead = "lines_read"
            case rejectsFile = "rejects_file"
        }
    }

    /// What a sharded ingest did with a spool: the events of shards that were down wait there,
    /// and the next sharded ingest into the same coordinator drains them first.
    public struct Spool: Sendable, Hashable, Codable {
        /// A shard whose events wait in the spool.
        public struct Waiting: Sendable, Hashable, Codable {
            /// The shard's id (`funnel shards list`).
            public var shard: Int
            /// Events waiting for it.
            public var events: Int
        }
        /// The spool folder (one `shard-ID` folder in it per shard).
        public var directory: String
        /// Events of this run spooled because their shard was down.
        public var spooled: Int
        /// Spooled events, of this run or an earlier one, that landed in this run.
        public var drained: Int
        /// Shards still down at the end, with the events waiting for them.
        public var waiting: [Waiting]
        /// Events waiting over all shards.
        public var waitingEvents: Int { waiting.reduce(0) { $0 + $1.events } }

        enum CodingKeys: String, CodingKey {
            case directory, spooled, drained, waiting
        }
    }

    /// Per input file, in the order given.
    public var files: [File]
    /// The spool of a sharded ingest; nil for one database.
    public var spool: Spool?
    /// Wall-clock seconds from start to the last commit.
    public var seconds: Double
    /// Sessions whose traces (what reports read) were built after the load; nil when they were
    /// left to the first report (a bulk load, or a writer that does not build them).
    public var tracesBuilt: Int?
    /// Wall-clock seconds that build took; nil when there was none.
    public var traceSeconds: Double?

    /// Records read over all files.
    public var linesRead: Int { files.reduce(0) { $0 + $1.linesRead } }
    /// Events newly stored over all files.
    public var inserted: Int { files.reduce(0) { $0 + $1.inserted } }
    /// Duplicates dropped over all files.
    public var duplicates: Int { files.reduce(0) { $0 + $1.duplicates } }
    /// Lines rejected over all files.
    public var rejected: Int { files.reduce(0) { $0 + $1.rejected } }
    /// Good events (inserted or duplicate) per second.
    public var eventsPerSecond: Double { seconds > 0 ? Double(inserted + duplicates) / seconds : 0 }

    enum CodingKeys: String, CodingKey {
        case files, seconds, inserted, duplicates, rejected, spool
        case linesRead = "lines_read"
        case eventsPerSecond = "events_per_second"
        case tracesBuilt = "traces_built"
        case traceSeconds = "trace_seconds"
    }

    /// Creates a summary.
    public init(files: [File], seconds: Double) {
        self.files = files
        self.seconds = seconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        files = try container.decode([File].self, forKey: .files)
        seconds = try container.decode(Double.self, forKey: .seconds)
        spool = try container.decodeIfPresent(Spool.self, forKey: .spool)
        tracesBuilt = try container.decodeIfPresent(Int.self, forKey: .tracesBuilt)
        traceSeconds = try container.decodeIfPresent(Double.self, forKey: .traceSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(files, forKey: .files)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(linesRead, forKey: .linesRead)
        try container.encode(inserted, forKey: .inserted)
        try container.encode(duplicates, forKey: .duplicates)
        try container.encode(rejected, forKey: .rejected)
        try container.encode(eventsPerSecond, forKey: .eventsPerSecond)
        try container.encodeIfPresent(spool, forKey: .spool)
        try container.encodeIfPresent(tracesBuilt, forKey: .tracesBuilt)
        try container.encodeIfPresent(traceSeconds, forKey: .traceSeconds)
    }
}
