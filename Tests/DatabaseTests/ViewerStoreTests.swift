import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// Viewers in PostgreSQL: the secret is stored only as a salted bcrypt hash, checks accept the
/// secret and nothing else, revoking stops a viewer, names are checked.
@Suite struct ViewerStoreTests {
    @Test func theSecretIsStoredOnlyAsASaltedBcryptHash() async throws {
        let configuration = try await TestDatabase.migrated("viewer_store")
        let (first, second, stored, everything) = try await TestDatabase.withConnection(configuration) { connection in
            let store = ViewerStore()
            let first = try store.create(name: "ana", on: connection)
            let second = try store.create(name: "ben", on: connection)
            let stored = try store.storedHash(name: "ana", on: connection)
            // Every column of every row, as text: the secrets must be nowhere.
            let everything = try connection.query("SELECT viewers::text AS row FROM viewers").compactMap {
                $0["row"].string
            }
            return (first, second, stored, everything)
        }
        let hash = try #require(stored)
        // Modular crypt format of bcrypt at the default cost 12: $2b$12$ + 22 salt + 31 hash characters.
        #expect(hash.count == 60)
        #expect(hash.hasPrefix("$2b$12$") || hash.hasPrefix("$2a$12$") || hash.hasPrefix("$2y$12$"))
        #expect(first.secret.hasPrefix("omv_") && first.secret.count == 47)
        #expect(first.secret != second.secret)
        for row in everything {
            #expect(!row.contains(first.secret) && !row.contains(second.secret))
            #expect(!row.contains(String(first.secret.dropFirst(4).prefix(20))))
        }
        let (good, wrong, other) = try await TestDatabase.withConnection(configuration) { connection in
            let store = ViewerStore()
            return (
                try store.verify(name: "ana", secret: first.secret, on: connection),
                try store.verify(name: "ana", secret: first.secret + "x", on: connection),
                try store.verify(name: "ana", secret: second.secret, on: connection)
            )
        }
        #expect(good?.name == "ana")
        #expect(wrong == nil)
        #expect(other == nil)
    }

    @Test func revokingStopsAViewerAndFreesItsName() async throws {
        let configuration = try await TestDatabase.migrated("viewer_revoke")
        try await TestDatabase.withConnection(configuration) { connection in
            let store = ViewerStore(cost: 4)
            let created = try store.create(name: "ana", on: connection)
            #expect(throws: ViewerError.self) { try store.create(name: "ana", on: connection) }
            let revoked = try store.revoke("ana", on: connection)
            #expect(revoked.revokedAt != nil)
            #expect(try store.verify(name: "ana", secret: created.secret, on: connection) == nil)
            #expect(try !store.isValid(name: "ana", on: connection))
            #expect(throws: ViewerError.self) { try store.revoke("ana", on: connection) }
            let again = try store.create(name: "ana", on: connection)
            #expect(try store.verify(name: "ana", secret: again.secret, on: connection)?.id == again.viewer.id)
            #expect(try store.list(on: connection).map(\.name) == ["ana", "ana"])
        }
    }

    @Test(arguments: ["", "   ", "a:b", "line\nbreak", String(repeating: "x", count: 201)])
    func badNamesAreRefused(_ name: String) throws {
        do {
            _ = try ViewerStore.validated(name)
            Issue.record("\(name.debugDescription) was accepted")
        } catch let error as ViewerError {
            #expect(error.code == .invalidName)
        }
        #expect(try ViewerStore.validated("  ana ") == "ana")
    }
}
