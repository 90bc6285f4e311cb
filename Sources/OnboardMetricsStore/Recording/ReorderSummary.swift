/// What ``EventReorderer`` did: each partition of `events`, rewritten in primary-key order or left
/// as it was because it was in that order already.
/// Its JSON keys are stable (snake_case).
public struct ReorderSummary: Sendable, Hashable, Codable {
    /// One partition: rewritten and analyzed, or left as it was.
    public struct Partition: Sendable, Hashable, Codable {
        /// The shard it lies on (its redacted URL; a Citus worker's `host:port`); `nil` for the
        /// database the reorder was run on.
        public var shard: String?
        /// The partition's schema.
        public var schema: String
        /// The partition's name, e.g. `events_2026_01` or `events_default`.
        public var name: String
        /// The primary-key index it was ordered by.
        public var index: String
        /// Whether it is the default partition (events of months without a partition of their own).
        public var isDefault: Bool
        /// Whether it was rewritten; `false` when it was in key order already.
        public var reordered: Bool
        /// Heap-page switches a row of a read in key order, measured before
        /// (``EventReorderer/pageSwitchesPerRow(of:on:)``); `nil` for an empty partition.
        public var pageSwitchesPerRow: Double?
        /// Rows written by the rewrite (PostgreSQL's count, not an estimate); 0 when left as it was.
        public var rows: Int
        /// Heap, indexes and TOAST before the rewrite, in bytes.
        public var bytesBefore: Int
        /// The same after it (dead rows and free space are gone).
        public var bytesAfter: Int
        /// Wall-clock seconds for measuring its order and, when rewritten, its `CLUSTER` and `ANALYZE`.
        public var seconds: Double

        /// Creates a partition's result.
        public init(
            shard: String? = nil, schema: String, name: String, index: String, isDefault: Bool,
            reordered: Bool = true, pageSwitchesPerRow: Double? = nil, rows: Int, bytesBefore: Int, bytesAfter: Int,
            seconds: Double
        ) {
            self.shard = shard
            self.schema = schema
            self.name = name
            self.index = index
            self.isDefault = isDefault
            self.reordered = reordered
            self.pageSwitchesPerRow = pageSwitchesPerRow
            self.rows = rows
            self.bytesBefore = bytesBefore
            self.bytesAfter = bytesAfter
            self.seconds = seconds
        }

        enum CodingKeys: String, CodingKey {
            case shard, schema, name, index, reordered, rows, seconds
            case isDefault = "is_default"
            case pageSwitchesPerRow = "page_switches_per_row"
            case bytesBefore = "bytes_before"
            case bytesAfter = "bytes_after"
        }
    }

    /// The partitions, in the order they were looked at.
    public var partitions: [Partition]
    /// Wall-clock seconds from the first partition's start to the last one's end.
    public var seconds: Double

    /// How many partitions were rewritten.
    public var reorderedCount: Int { partitions.filter(\.reordered).count }
    /// Rows rewritten over all partitions.
    public var rows: Int { partitions.reduce(0) { $0 + $1.rows } }
    /// Size of all partitions before, in bytes.
    public var bytesBefore: Int { partitions.reduce(0) { $0 + $1.bytesBefore } }
    /// Size of all partitions after, in bytes.
    public var bytesAfter: Int { partitions.reduce(0) { $0 + $1.bytesAfter } }

    /// Creates a summary.
    public init(partitions: [Partition], seconds: Double) {
        self.partitions = partitions
        self.seconds = seconds
    }

    enum CodingKeys: String, CodingKey {
        case partitions, seconds, rows
        case reorderedCount = "reordered_partitions"
        case bytesBefore = "bytes_before"
        case bytesAfter = "bytes_after"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        partitions = try container.decode([Partition].self, forKey: .partitions)
        seconds = try container.decode(Double.self, forKey: .seconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(partitions, forKey: .partitions)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(rows, forKey: .rows)
        try container.encode(reorderedCount, forKey: .reorderedCount)
        try container.encode(bytesBefore, forKey: .bytesBefore)
        try container.encode(bytesAfter, forKey: .bytesAfter)
    }
}
