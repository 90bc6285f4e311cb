import Foundation

/// An open connection one step of a run leaves for the next, so a report does not open a second
/// one to the same server right after closing the first (a connection is a server process
/// started: about 2 ms of a report's 30 on the local socket, BENCHMARKS.md).
///
/// Taken at most once, and only for the configuration it was opened with; one never taken is
/// closed when the box goes (by the connection's own `deinit`). The box hands the connection from
/// one owner to the next and never uses it (`@unchecked Sendable`: the lock guards the only stored
/// connection). The giver says in what state it leaves it (idle, or in a snapshot to read in).
package final class SpareConnection: @unchecked Sendable {
    /// The configuration the connection was opened with.
    package let configuration: PostgresConfiguration
    private let lock = NSLock()
    private var connection: PostgresConnection?

    /// Keeps `connection`, opened with `configuration`.
    package init(_ connection: PostgresConnection, configuration: PostgresConfiguration) {
        self.connection = connection
        self.configuration = configuration
    }

    /// The connection, if it is still here and was opened with `configuration`; else nil.
    package func take(for configuration: PostgresConfiguration) -> PostgresConnection? {
        guard configuration == self.configuration else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let taken = connection
        connection = nil
        return taken
    }
}
