/// A refused or failed change to a sharded deployment (adding, removing or moving shards and
/// buckets), as opposed to a database error, which stays a `PostgresError`.
public struct ShardingError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The URL, or another URL reaching the same database, is already a shard.
        public static let alreadyAdded = Code("alreadyAdded")
        /// No shard has this URL.
        public static let unknownShard = Code("unknownShard")
        /// The shard still holds events or sessions: removing it would lose them.
        public static let holdsData = Code("holdsData")
        /// The coordinator holds events of its own, which a sharded deployment would no longer read.
        public static let coordinatorHoldsData = Code("coordinatorHoldsData")
        /// The URL reaches the coordinator itself, or a move's target is the database the bucket is on.
        public static let sameDatabase = Code("sameDatabase")
        /// The bucket is already on the shard it was to be moved to: nothing to do.
        public static let alreadyThere = Code("alreadyThere")
        /// The target of a move does not hold every copied row: the source keeps them.
        public static let copyNotVerified = Code("copyNotVerified")
        /// A bucket number outside `0..<64`, or a bucket that no shard holds.
        public static let badBucket = Code("badBucket")
        /// A Citus shard of `events` has no active primary placement, or an unexpected name.
        public static let citusPlacement = Code("citusPlacement")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people, saying what failed (URLs in it are redacted).
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
