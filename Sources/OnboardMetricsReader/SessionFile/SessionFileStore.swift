import Foundation
import OnboardMetricsPostgres

/// Where reports keep their ``SessionFile``s: a folder of this user's (made `0700`, each file
/// `0600`: the files hold the events' user ids and properties), one file per database and grouping.
///
/// A report (``ShardedReader/sessionFiles``) brings the file up to date — the traces' catch-up,
/// then the traces written and removed since the file's watermark — writes it back when that
/// changed anything, and decodes it instead of reading every trace from PostgreSQL. The file is a
/// copy: one that cannot be read is read again from the traces, and deleting the folder only costs
/// the next report the time to write it.
public struct SessionFileStore: Sendable {
    /// The folder.
    public let directory: URL
    /// Told why a file could not be read or written (the report goes on without it).
    public var warn: @Sendable (String) -> Void

    /// A store in `directory` (made when first written).
    public init(directory: URL, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = directory
        self.warn = warn
    }

    /// The folder used when none is given: `$ONBOARDMETRICS_CACHE_DIR/sessions`, else
    /// `$XDG_CACHE_HOME/onboardmetrics/sessions`, else `$HOME/.cache/onboardmetrics/sessions`; nil
    /// without any of them.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let configured = environment["ONBOARDMETRICS_CACHE_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured).appendingPathComponent("sessions")
        }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("onboardmetrics/sessions")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/onboardmetrics/sessions")
    }

    /// The file for one database and grouping, brought up to date; nil when the report must read
    /// PostgreSQL (a database without traces, a role that may only read, a folder others may
    /// write, no file yet and `buildIfMissing` false); with where it is kept, and — when it left
    /// traces for the report to read (``SessionFile/deferred``) — the connection to read them on,
    /// its repeatable-read snapshot still open (the reader ends it).
    /// - Parameters:
    ///   - connection: an open connection to `configuration`'s server to use (and close), if any.
    ///   - parts: the connections the traces' catch-up may use.
    /// - Throws: `PostgresError` for a failed connection, catch-up or read.
    func refreshed(
        configuration: PostgresConfiguration, connection opened: PostgresConnection? = nil, closeAfter: Int64,
        closeFinishedAfter: Int64?, buildIfMissing: Bool, parts: Int
    ) throws -> (file: SessionFile, url: URL, connection: SpareConnection?)? {
        do {
            try checkFolder()
        } catch {
            warn("\(error); reports read PostgreSQL")
            opened?.close()
            return nil
        }
        let connection = try opened ?? PostgresConnection(configuration: configuration)
        // Closed on the way out unless handed on to the report.
        var handedOn = false
        defer { if !handedOn { connection.close() } }
        guard try TraceBuilder().catchUpIfWritable(on: connection, parts: parts) else { return nil }
        guard
            let identity = try connection.query(
                """
                SELECT (SELECT system_identifier FROM pg_control_system())::text || '-' || d.oid::text
                FROM pg_database d WHERE d.datname = current_database()
                """
            ).first?[0].string,
            // Digits and a dash: it names a file.
            !identity.isEmpty, identity.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) })
        else { throw PostgresError(.invalidValue, "the server gave no identity") }
        let url = directory.appendingPathComponent(
            "\(identity)-\(closeAfter)-\(closeFinishedAfter.map { String($0) } ?? "none").sessions")
        var file = SessionFile(closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
        var unusable = !FileManager.default.fileExists(atPath: url.path)
        if !unusable {
            do {
                file = try SessionFile(contentsOf: url, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
                unusable = file.wasteful
            } catch {
                unusable = true
                warn("\(error); it is " + (buildIfMissing ? "written again from the session traces" : "removed"))
                if !buildIfMissing { try? FileManager.default.removeItem(at: url) }
            }
        }
        // A file to write whole is written only by a read that takes every trace anyway.
        if unusable {
            guard buildIfMissing else { return nil }
            file.restart()
        }
        guard
            try TraceChanges.read(
                into: &file, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter, on: connection,
                maximumEvents: Self.maximumEvents) != nil
        else { return nil }
        if file.isWorthWriting {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                // Checked again once it exists: it may have been made in between.
                try checkFolder()
                removeAbandonedTemporaries()
                try file.write(to: url)
            } catch {
                warn("cannot keep the sessions in \(directory.path): \(error)")
                // A file whose records would not read goes: else every report would meet it again.
                if let error = error as? SessionFileError, error.code != .io {
                    try? FileManager.default.removeItem(at: url)
                }
            }
        }
        file.forgetNumbering()
        guard !file.deferred.isEmpty else { return (file, url, nil) }
        handedOn = true
        return (file, url, SpareConnection(connection, configuration: configuration))
    }

    /// The most events a file keeps (about 4 GB of it, built in memory): past them reports read
    /// PostgreSQL, as the traces stream.
    static let maximumEvents = 250_000_000

    /// Refuses a folder that is not this user's, or that others may write: a file another user put
    /// there would become this user's numbers. A folder not made yet is made `0700`.
    private func checkFolder() throws {
        var status = stat()
        guard lstat(directory.path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(), status.st_mode & 0o022 == 0 else {
            throw SessionFileError(
                .foreign, "\(directory.path) is not a folder of this user's that only they may write")
        }
    }

    /// Removes temporary files of ours an interrupted write left (an hour old: a write under way
    /// in another process is younger).
    private func removeAbandonedTemporaries() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") && name.contains(".sessions.") {
            let path = directory.appendingPathComponent(name).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                (attributes[.ownerAccountID] as? NSNumber)?.uint32Value == geteuid(),
                let modified = attributes[.modificationDate] as? Date, modified < Date().addingTimeInterval(-3_600)
            else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
