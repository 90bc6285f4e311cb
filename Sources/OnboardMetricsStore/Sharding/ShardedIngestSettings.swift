/// Where a sharded `funnel ingest` sends its events: each batch is split by the shard of its
/// sessions (``SessionBucket``), and each shard's parts are copied by a ``ShardWriter`` of its
/// own, in parallel.
package struct ShardedIngestSettings: Sendable {
    package var topology: ShardTopology
    /// The spool folder; each shard spools under `shard-ID` in it.
    package var spoolDirectory: String

    package init(topology: ShardTopology, spoolDirectory: String) {
        self.topology = topology
        self.spoolDirectory = spoolDirectory
    }
}
