import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// `funnel keys` (issue 31, minor): a key is revoked by the key itself without being printed
/// back, and a name that would write control characters to a terminal is refused or escaped.
@Suite struct KeysCommandTests {
    /// A second revocation keeps the first one's time (the update no longer uses
    /// `coalesce(revoked_at, now())`, which Citus refuses on a reference table).
    @Test func revokingTwiceKeepsTheFirstRevocationTime() async throws {
        let configuration = try await TestDatabase.migrated("keys_revoke_twice")
        let (first, second, stored) = try await TestDatabase.withConnection(configuration) { connection in
            let store = AppKeyStore()
            let created = try store.create(name: "web", on: connection)
            let first = try store.revoke(String(created.key.id), on: connection)
            // now() is the transaction's start: a later statement gets a later time.
            try connection.query("SELECT pg_sleep(0.05)")
            let second = try store.revoke(created.key.prefix, on: connection)
            let stored = try connection.query("SELECT revoked_at FROM app_keys").first?["revoked_at"].date
            return (first, second, stored)
        }
        let revokedAt = try #require(first.revokedAt)
        #expect(second.revokedAt == revokedAt)
        #expect(stored == revokedAt)
        #expect(second.id == first.id && second.name == "web")
    }

    @Test func aKeyIsRevokedByItselfAndNeverEchoedAndNamesCarryNoControls() async throws {
        let configuration = try await TestDatabase.migrated("keys_command")
        let url = TestDatabase.url(of: configuration)
        let created = try await FunnelProcess.run(["keys", "create", "ios app", "--database-url", url, "--quiet"])
        #expect(created.status == 0, "\(created.errors)")
        let secret = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("om_") && secret.count > 20)

        // A wrong whole key: refused, and only its prefix shown.
        let wrong = String(secret.dropLast()) + (secret.hasSuffix("A") ? "B" : "A")
        let refused = try await FunnelProcess.run(["keys", "revoke", wrong, "--database-url", url, "--quiet"])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("no app key") && !refused.errors.contains(wrong), "\(refused.errors)")
        #expect(!refused.errors.contains(String(wrong.dropFirst(10))), "\(refused.errors)")

        // The whole key revokes it, and is not printed back.
        let revoked = try await FunnelProcess.run(["keys", "revoke", secret, "--database-url", url, "--quiet"])
        #expect(revoked.status == 0, "\(revoked.errors)")
        #expect(revoked.output.contains("revoked key 1 (ios app"), "\(revoked.output)")
        #expect(!revoked.output.contains(secret) && !revoked.errors.contains(secret))
        let active = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*)::int8 AS n FROM app_keys WHERE revoked_at IS NULL").first?["n"].int
        }
        #expect(active == 0)

        // Names with a newline or an ANSI escape are refused (exit 65, data).
        for name in ["two\nlines", "red \u{1B}[31mkey"] {
            let outcome = try await FunnelProcess.run(["keys", "create", name, "--database-url", url, "--quiet"])
            #expect(outcome.status == 65, "\(outcome.errors)")
            #expect(outcome.errors.contains("control characters"), "\(outcome.errors)")
            #expect(!outcome.errors.contains("\u{1B}"))
        }
        // One stored before names were checked is listed escaped.
        _ = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                "INSERT INTO app_keys (name, prefix, key_hash) VALUES ($1, 'om_old0000', sha256('old'))",
                [.text("old\u{1B}[2Jname")])
        }
        let listed = try await FunnelProcess.run(["keys", "list", "--database-url", url, "--quiet"])
        #expect(listed.status == 0)
        #expect(!listed.output.contains("\u{1B}") && listed.output.contains(#"old\u{1B}[2Jname"#), "\(listed.output)")
    }
}
