extension EventRecorder {
    /// What the recorder has done so far.
    public struct Counters: Sendable, Hashable, Codable {
        /// Events accepted by ``record(_:)``.
        public var recorded = 0
        /// Events newly stored in the database.
        public var committed = 0
        /// Events the database already had (same `event_id`): dropped, not stored twice.
        public var duplicates = 0
        /// Failed attempts to reach or write to the database that were retried.
        public var retried = 0
        /// Events written to the spool.
        public var spooled = 0
        /// Events dropped because the spool was over its cap.
        public var dropped = 0
        /// Events refused: invalid at ``record(_:)``, or refused by the database for good.
        public var rejected = 0
    }
}
