import Foundation
import OnboardMetricsPostgres

/// A PostgreSQL cluster that OnboardMetrics creates and runs itself under a data folder: the
/// default database when none is configured.
///
/// The server listens only on a Unix socket inside the data folder (no TCP port), trusts
/// local connections there, and runs as the `postgres` system user when this process is root,
/// because PostgreSQL refuses to run as root.
public struct EmbeddedCluster: Sendable {
    /// The default data folder, relative to the working directory.
    public static let defaultDataDirectory = ".onboardmetrics/postgres"
    /// The environment variable that overrides the default data folder.
    public static let dataDirectoryEnvironmentKey = "ONBOARDMETRICS_DATA_DIR"

    /// Whether the cluster exists and runs.
    public enum State: String, Sendable, Codable {
        case notCreated = "not created"
        case stopped
        case running
    }

    /// The cluster's data folder (PGDATA), absolute.
    public let dataDirectory: String
    /// The database the tool uses inside the cluster.
    public let databaseName = "onboardmetrics"
    /// The superuser the cluster is created with.
    public let user = "onboardmetrics"
    /// The port number, which names the socket file (the server opens no TCP port).
    public let port = 5432

    /// A cluster under `dataDirectory` (relative paths are taken from the working directory).
    public init(dataDirectory: String) {
        let absolute =
            dataDirectory.hasPrefix("/")
            ? dataDirectory : FileManager.default.currentDirectoryPath + "/" + dataDirectory
        self.dataDirectory = URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// The cluster named by `ONBOARDMETRICS_DATA_DIR`, else the default folder.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> EmbeddedCluster
    {
        let configured = environment[dataDirectoryEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 }
        return EmbeddedCluster(dataDirectory: configured ?? defaultDataDirectory)
    }

    /// The folder holding the server's socket: the data folder itself, unless its path is too long
    /// for a socket address (107 bytes on Linux), then a folder under /tmp named after it.
    public var socketDirectory: String {
        if (dataDirectory + "/.s.PGSQL.\(port)").utf8.count <= 100 { return dataDirectory }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in dataDirectory.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "/tmp/onboardmetrics-" + String(hash, radix: 16)
    }

    /// Settings that reach the cluster's database.
    public var configuration: PostgresConfiguration {
        PostgresConfiguration(url)
    }

    /// A libpq URI for the cluster's database (for `psql`, `DATABASE_URL`, other tools).
    public var url: String {
        let host =
            socketDirectory.addingPercentEncoding(
                withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+")))
            ?? socketDirectory
        return "postgresql://\(user)@/\(databaseName)?host=\(host)&port=\(port)"
    }

    private var serverUser: String? { ProcessRunner.isRoot ? "postgres" : nil }

    /// Whether the cluster exists and its server runs.
    /// - Throws: ``EmbeddedClusterError`` `.programsMissing` when the server programs are missing.
    public func state() throws -> State {
        guard FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") else { return .notCreated }
        let programs = try ServerPrograms.locate()
        let outcome = try ProcessRunner.run(programs.pgCtl, ["status", "-D", dataDirectory], as: serverUser)
        return outcome.status == 0 ? .running : .stopped
    }

    /// Creates the cluster if it does not exist, starts its server if it is not running, and
    /// creates the tool's database in it. Safe to call from several processes at once.
    /// - Parameter progress: told each step that takes time ("creating the cluster", ...).
    /// - Returns: settings that reach the database.
    /// - Throws: ``EmbeddedClusterError`` with the reason and the server log's last lines.
    @discardableResult
    public func start(progress: (String) -> Void = { _ in }) throws -> PostgresConfiguration {
        let programs = try ServerPrograms.locate()
        let parent = (dataDirectory as NSString).deletingLastPathComponent
        try createFolder(parent, ownedByServer: false)
        return try withFileLock(parent + "/." + (dataDirectory as NSString).lastPathComponent + ".lock") {
            if !FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") {
                progress("creating a PostgreSQL cluster in \(dataDirectory)")
                try initialize(programs)
            }
            if try state() != .running {
                progress("starting PostgreSQL (socket in \(socketDirectory))")
                if socketDirectory != dataDirectory { try createFolder(socketDirectory, ownedByServer: true) }
                let log = dataDirectory + "/server.log"
                let outcome = try ProcessRunner.run(
                    programs.pgCtl, ["start", "-D", dataDirectory, "-l", log, "-w", "-t", "60"], as: serverUser)
                guard outcome.status == 0 else {
                    throw EmbeddedClusterError(
                        .serverFailed, "PostgreSQL did not start: \(outcome.output)\n\(logTail(log))")
                }
            }
            try createDatabase()
            return configuration
        }
    }

    /// How to stop the server, as `pg_ctl stop -m` names it.
    public enum StopMode: String, Sendable {
        /// Roll back open transactions, disconnect clients, shut down cleanly.
        case fast
        /// Abort at once, as a crash would; the next start recovers from the WAL.
        case immediate
    }

    /// Stops the server. Stopping a stopped or absent cluster does nothing.
    /// - Parameter mode: `.fast` (default) or `.immediate`, which simulates a crash.
    /// - Returns: whether a running server was stopped.
    /// - Throws: ``EmbeddedClusterError`` when `pg_ctl stop` fails.
    @discardableResult
    public func stop(mode: StopMode = .fast) throws -> Bool {
        guard try state() == .running else { return false }
        let programs = try ServerPrograms.locate()
        let outcome = try ProcessRunner.run(
            programs.pgCtl, ["stop", "-D", dataDirectory, "-m", mode.rawValue, "-w", "-t", "60"], as: serverUser)
        guard outcome.status == 0 else {
            throw EmbeddedClusterError(.serverFailed, "PostgreSQL did not stop: \(outcome.output)")
        }
        return true
    }

    private func initialize(_ programs: ServerPrograms) throws {
        try createFolder(dataDirectory, ownedByServer: true)
        let outcome = try ProcessRunner.run(
            programs.initdb,
            ["-D", dataDirectory, "-U", user, "--auth=trust", "--encoding=UTF8", "--locale=C"],
            as: serverUser)
        guard outcome.status == 0 else {
            throw EmbeddedClusterError(.serverFailed, "initdb failed in \(dataDirectory): \(outcome.output)")
        }
        // Only a socket in a folder of our own: no TCP port, so nothing else on the machine can reach it.
        let settings = """

            # Written by OnboardMetrics (EmbeddedCluster).
            listen_addresses = ''
            unix_socket_directories = '\(socketDirectory.replacingOccurrences(of: "'", with: "''"))'
            port = \(port)

            """
        let configFile = dataDirectory + "/postgresql.conf"
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: configFile))
        } catch {
            throw EmbeddedClusterError(.dataFolder, "cannot write \(configFile): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(settings.utf8))
    }

    private func createDatabase() throws {
        let connection = try PostgresConnection(configuration: configuration.database("postgres"))
        defer { connection.close() }
        let existing = try connection.query("SELECT 1 FROM pg_database WHERE datname = $1", [.text(databaseName)])
        if existing.isEmpty {
            do {
                // An identifier, fixed in this file: CREATE DATABASE takes no parameters.
                try connection.query("CREATE DATABASE onboardmetrics")
            } catch let error as PostgresError where error.sqlState == "42P04" {
                // Created by a concurrent start: what we wanted.
            }
        }
    }

    private func createFolder(_ path: String, ownedByServer: Bool) throws {
        let fileManager = FileManager.default
        do {
            if !fileManager.fileExists(atPath: path) {
                try fileManager.createDirectory(
                    atPath: path, withIntermediateDirectories: true,
                    attributes: ownedByServer ? [.posixPermissions: 0o700] : nil)
            }
            if ownedByServer, let serverUser {
                try fileManager.setAttributes(
                    [.ownerAccountName: serverUser, .posixPermissions: 0o700], ofItemAtPath: path)
            }
        } catch {
            throw EmbeddedClusterError(.dataFolder, "cannot create \(path): \(error.localizedDescription)")
        }
        if ownedByServer, let serverUser {
            // The server user must be able to walk down to the folder.
            let probe = try ProcessRunner.run("/usr/bin/test", ["-w", path], as: serverUser)
            guard probe.status == 0 else {
                throw EmbeddedClusterError(
                    .dataFolder,
                    "the \(serverUser) user cannot reach \(path) (a parent folder is closed to it); "
                        + "choose a data folder elsewhere with --data-dir or \(Self.dataDirectoryEnvironmentKey)")
            }
        }
    }

    private func logTail(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "" }
        return "last lines of \(path):\n" + text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }

    private func withFileLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        guard descriptor >= 0 else {
            throw EmbeddedClusterError(.dataFolder, "cannot open the lock file \(path)")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw EmbeddedClusterError(.dataFolder, "cannot lock \(path)")
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
