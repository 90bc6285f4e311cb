import Foundation
import HummingbirdBcrypt
import OnboardMetricsPostgres

/// Viewers of the dashboard in PostgreSQL (table `viewers`, migrations/0004_viewers.sql). Every
/// value travels as a parameter. Secrets are hashed with bcrypt (HummingbirdBcrypt): slow and
/// salted by design, so hashing and checking take a blocking-work thread, never the cooperative pool.
public struct ViewerStore: Sendable {
    /// Longest viewer name accepted.
    public static let maximumNameLength = 200
    /// bcrypt's cost (log2 of its rounds): about a quarter second per check on a server core.
    public static let defaultCost: UInt8 = 12

    /// The bcrypt cost new secrets are hashed with.
    public var cost: UInt8

    /// Creates a store; a lower `cost` only for tests.
    public init(cost: UInt8 = ViewerStore.defaultCost) {
        self.cost = cost
    }

    /// Creates a viewer named `name` and returns its record and its secret — the only time the
    /// secret is shown: only its bcrypt hash is stored.
    /// - Throws: ``ViewerError`` `.invalidName` or `.nameTaken`, `PostgresError`.
    public func create(name: String, on connection: PostgresConnection) throws -> (viewer: Viewer, secret: String) {
        let name = try Self.validated(name)
        let secret = Self.newSecret()
        let hash = Bcrypt.hash(secret, cost: cost)
        let rows: PostgresRows
        do {
            rows = try connection.query(
                """
                INSERT INTO viewers (name, secret_hash) VALUES ($1, $2)
                RETURNING viewer_id, name, created_at, revoked_at
                """, [.text(name), .text(hash)])
        } catch let error as PostgresError where error.sqlState == PostgresError.Code.uniqueViolationSQLState {
            throw ViewerError(.nameTaken, "a viewer named \(name.debugDescription) exists (revoke it first)")
        }
        guard let row = rows.first, let viewer = Self.decode(row) else {
            throw PostgresError(.protocolViolation, "INSERT INTO viewers returned no row")
        }
        return (viewer, secret)
    }

    /// Every viewer, revoked ones included, oldest first.
    /// - Throws: `PostgresError`.
    public func list(on connection: PostgresConnection) throws -> [Viewer] {
        try connection.query("SELECT viewer_id, name, created_at, revoked_at FROM viewers ORDER BY viewer_id")
            .compactMap(Self.decode)
    }

    /// Revokes the valid viewer named `name`: it can no longer sign in (a running dashboard
    /// refuses it within its cache's time to live).
    /// - Throws: ``ViewerError`` `.unknownViewer`, `PostgresError`.
    @discardableResult
    public func revoke(_ name: String, on connection: PostgresConnection) throws -> Viewer {
        let rows = try connection.query(
            """
            UPDATE viewers SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL
            RETURNING viewer_id, name, created_at, revoked_at
            """, [.text(name)])
        guard let viewer = rows.first.flatMap(Self.decode) else {
            throw ViewerError(
                .unknownViewer, "no valid viewer is named \(name.debugDescription) (funnel viewers list shows them)")
        }
        return viewer
    }

    /// The valid viewer named `name` when `secret` is its secret; `nil` otherwise (no such viewer,
    /// revoked, or a wrong secret: the caller cannot tell which, and neither can a client).
    /// Blocks for bcrypt's time: call it on a blocking-work thread.
    /// - Throws: `PostgresError`.
    public func verify(name: String, secret: String, on connection: PostgresConnection) throws -> Viewer? {
        let rows = try connection.query(
            "SELECT viewer_id, name, created_at, revoked_at, secret_hash FROM viewers WHERE name = $1 AND revoked_at IS NULL",
            [.text(name)])
        guard let row = rows.first, let viewer = Self.decode(row), let hash = row["secret_hash"].string else {
            // Pay a check anyway, so an unknown name answers as slowly as a wrong secret.
            _ = Bcrypt.verify(secret, hash: Self.decoyHash)
            return nil
        }
        return Bcrypt.verify(secret, hash: hash) ? viewer : nil
    }

    /// Whether a valid (not revoked) viewer has this name: how a signed-in session is re-checked.
    /// - Throws: `PostgresError`.
    public func isValid(name: String, on connection: PostgresConnection) throws -> Bool {
        try !connection.query("SELECT 1 FROM viewers WHERE name = $1 AND revoked_at IS NULL", [.text(name)]).isEmpty
    }

    /// How many viewers may sign in; `nil` when the database has no viewers table yet (migration
    /// 0004 not applied), which `funnel dashboard` says at start rather than at every sign-in.
    /// - Throws: `PostgresError` for any other failure.
    public func validCount(on connection: PostgresConnection) throws -> Int? {
        do {
            return try connection.query("SELECT count(*) AS n FROM viewers WHERE revoked_at IS NULL").first?["n"].int
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return nil
        }
    }

    /// The stored hash of the valid viewer named `name` (for tests that check what is kept).
    package func storedHash(name: String, on connection: PostgresConnection) throws -> String? {
        try connection.query(
            "SELECT secret_hash FROM viewers WHERE name = $1 AND revoked_at IS NULL", [.text(name)]
        ).first?["secret_hash"].string
    }

    /// A name as given, trimmed; refused when empty, too long, with control characters (it is
    /// printed and logged) or a colon (HTTP Basic ends the user name at the first colon).
    static func validated(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= maximumNameLength else {
            throw ViewerError(.invalidName, "a viewer needs a name of 1 to \(maximumNameLength) characters")
        }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            || trimmed.contains(":")
        {
            throw ViewerError(.invalidName, "a viewer name may not hold a colon or control characters")
        }
        return trimmed
    }

    /// A new random secret: `omv_` and 43 characters of base64url over 32 bytes from the system's
    /// cryptographic random source (well under bcrypt's 72-byte limit).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return secretPrefix + text
    }

    /// What every viewer's secret starts with (``newSecret()``).
    package static let secretPrefix = "omv_"

    /// A hash of a random secret nobody knows, at the default cost, checked for unknown names.
    private static let decoyHash = Bcrypt.hash(newSecret(), cost: defaultCost)

    private static func decode(_ row: PostgresRow) -> Viewer? {
        guard let id = row["viewer_id"].int, let name = row["name"].string, let createdAt = row["created_at"].date
        else { return nil }
        return Viewer(id: Int64(id), name: name, createdAt: createdAt, revokedAt: row["revoked_at"].date)
    }
}
