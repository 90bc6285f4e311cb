import Foundation
import OnboardMetricsFormats
import OnboardMetricsPostgres

/// App keys of the HTTP collector in PostgreSQL (table `app_keys`, migrations/0002_app_keys.sql).
/// Every value travels as a parameter.
public struct AppKeyStore: Sendable {
    /// Longest key name accepted.
    public static let maximumNameLength = 200

    /// Creates a store.
    public init() {}

    /// Creates a key named `name` and returns its record and the key itself — the only time the
    /// key is shown: only its digest is stored.
    /// - Throws: ``CollectorError`` `.invalidKeyName`, `PostgresError`.
    public func create(name: String, on connection: PostgresConnection) throws -> (key: AppKey, secret: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= Self.maximumNameLength else {
            throw CollectorError(.invalidKeyName, "a key needs a name of 1 to \(Self.maximumNameLength) characters")
        }
        // A name is printed by `funnel keys list` and in logs: no newlines, escapes or other controls.
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw CollectorError(.invalidKeyName, "a key name may not hold control characters (newlines, escapes)")
        }
        let secret = AppKey.newSecret()
        let rows = try connection.query(
            """
            INSERT INTO app_keys (name, prefix, key_hash) VALUES ($1, $2, $3)
            RETURNING key_id, name, prefix, created_at, revoked_at
            """,
            [.text(trimmed), .text(String(secret.prefix(AppKey.prefixLength))), .bytea(AppKey.digest(of: secret))])
        guard let row = rows.first, let key = Self.decode(row) else {
            throw PostgresError(.protocolViolation, "INSERT INTO app_keys returned no row")
        }
        return (key, secret)
    }

    /// Every key, revoked ones included, oldest first.
    /// - Throws: `PostgresError`.
    public func list(on connection: PostgresConnection) throws -> [AppKey] {
        try connection.query("SELECT key_id, name, prefix, created_at, revoked_at FROM app_keys ORDER BY key_id")
            .compactMap(Self.decode)
    }

    /// Revokes the key with this id, this prefix, or this whole key (matched by its digest; errors
    /// show only its prefix). A revoked key stays revoked; revoking it again changes nothing.
    /// - Returns: the key as it now stands.
    /// - Throws: ``CollectorError`` `.unknownKey` when no key matches (or a prefix matches several),
    ///   `PostgresError`.
    @discardableResult
    public func revoke(_ reference: String, on connection: PostgresConnection) throws -> AppKey {
        let matches: PostgresRows
        var shown = reference
        if let id = Int64(reference) {
            matches = try connection.query(
                "SELECT key_id, name, prefix, created_at, revoked_at FROM app_keys WHERE key_id = $1", [.int64(id)])
        } else if reference.count > AppKey.prefixLength {
            // Longer than a prefix: taken as the key itself, which is never echoed.
            shown = String(reference.prefix(AppKey.prefixLength)) + "…"
            matches = try connection.query(
                "SELECT key_id, name, prefix, created_at, revoked_at FROM app_keys WHERE key_hash = $1",
                [.bytea(AppKey.digest(of: reference))])
        } else {
            matches = try connection.query(
                "SELECT key_id, name, prefix, created_at, revoked_at FROM app_keys WHERE prefix = $1",
                [.text(reference)])
        }
        guard matches.count == 1, let key = matches.first.flatMap(Self.decode) else {
            throw CollectorError(
                .unknownKey,
                matches.isEmpty
                    ? "no app key has id, prefix or key \(shown.debugDescription) (funnel keys list shows them)"
                    : "\(matches.count) keys have the prefix \(shown.debugDescription); revoke by id")
        }
        // A key revoked before keeps its first revocation time. Not `coalesce(revoked_at, now())`:
        // Citus refuses a non-immutable function inside COALESCE in an UPDATE of a reference table.
        let rows = try connection.query(
            """
            UPDATE app_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL
            RETURNING key_id, name, prefix, created_at, revoked_at
            """, [.int64(key.id)])
        if let revoked = rows.first.flatMap(Self.decode) { return revoked }
        // Revoked already (maybe by another run since the lookup above): as stored.
        return try connection.query(
            "SELECT key_id, name, prefix, created_at, revoked_at FROM app_keys WHERE key_id = $1", [.int64(key.id)]
        ).first.flatMap(Self.decode) ?? key
    }

    /// The keys that are valid now, by digest: what the collector checks requests against.
    /// - Throws: `PostgresError`.
    package func activeDigests(on connection: PostgresConnection) throws -> [[UInt8]: AppKey] {
        var keys: [[UInt8]: AppKey] = [:]
        for row in try connection.query(
            "SELECT key_id, name, prefix, created_at, revoked_at, key_hash FROM app_keys WHERE revoked_at IS NULL")
        {
            if case .bytea(let digest) = row["key_hash"], let key = Self.decode(row) { keys[digest] = key }
        }
        return keys
    }

    private static func decode(_ row: PostgresRow) -> AppKey? {
        guard let id = row["key_id"].int, let name = row["name"].string, let prefix = row["prefix"].string,
            let createdAt = row["created_at"].date
        else { return nil }
        return AppKey(
            id: Int64(id), name: name, prefix: prefix, createdAt: createdAt, revokedAt: row["revoked_at"].date)
    }
}
