import Foundation
import OnboardMetricsPostgres

/// One schema migration: a file `NNNN_description.sql` applied once, in version order.
public struct Migration: Sendable, Hashable {
    /// The number the file name starts with.
    public let version: Int
    /// The file name, e.g. `0001_event_schema.sql`.
    public let fileName: String
    /// The SQL the file holds.
    public let sql: String

    /// Creates a migration from a file's name and text.
    /// - Throws: ``MigrationError`` `.invalidFile` when the name is not `NNNN_description.sql`.
    public init(fileName: String, sql: String) throws {
        let stem = fileName.hasSuffix(".sql") ? String(fileName.dropLast(4)) : ""
        let parts = stem.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 4, let version = Int(parts[0]), version > 0,
            parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else {
            throw MigrationError(
                .invalidFile, "\(fileName): migration files are named NNNN_description.sql (e.g. 0002_add_index.sql)")
        }
        self.version = version
        self.fileName = fileName
        self.sql = sql
    }

    /// Loads every `*.sql` file of a directory, sorted by version.
    /// - Throws: ``MigrationError`` `.invalidFile` for a missing directory, a bad name or two files with one version.
    public static func load(from directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError(
                .invalidFile, "cannot read the migrations folder \(directory.path): \(error.localizedDescription)")
        }
        var migrations: [Migration] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            let url = directory.appendingPathComponent(name)
            let sql: String
            do {
                sql = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw MigrationError(.invalidFile, "\(url.path): cannot be read as UTF-8 text")
            }
            migrations.append(try Migration(fileName: name, sql: sql))
        }
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.version == later.version {
            throw MigrationError(.invalidFile, "\(earlier.fileName) and \(later.fileName) have the same version number")
        }
        return migrations
    }
}
