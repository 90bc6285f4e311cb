import Foundation
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// The key cache's promises with the clock passed in, so a loaded machine cannot stretch them: an
/// unknown key is read from PostgreSQL at most once per miss interval, a new key works once that
/// interval has passed, and a revoked key stops once the refresh interval has.
@Suite struct AppKeyCacheTests {
    /// The cache's clock: every read and request is told the time, so none of this depends on
    /// how fast the machine is.
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A new database `name` with one key, and a cache (refresh 5 s, miss 1 s) that read it at ``t0``.
    static func loaded(
        _ name: String
    ) async throws -> (PostgresConfiguration, AppKeyCache, (key: AppKey, secret: String)) {
        let configuration = try await TestDatabase.migrated(name)
        let cache = AppKeyCache(database: configuration, refreshInterval: 5, missInterval: 1)
        let created = try await TestDatabase.withConnection(configuration) { connection in
            try AppKeyStore().create(name: "first", on: connection)
        }
        try await cache.load(now: t0)
        return (configuration, cache, created)
    }

    @Test func newKeysWorkAfterTheMissIntervalAndRevokedOnesStopAfterTheRefresh() async throws {
        let (configuration, cache, first) = try await Self.loaded("key_cache")
        let t0 = Self.t0
        #expect(try await cache.key(for: first.secret, now: t0)?.id == first.key.id)
        #expect(try await cache.key(for: "om_unknown", now: t0) == nil)

        let second = try await TestDatabase.withConnection(configuration) { connection in
            try AppKeyStore().create(name: "second", on: connection)
        }
        // Within the miss interval of the last read, an unknown key is not looked up again.
        #expect(try await cache.key(for: second.secret, now: t0.addingTimeInterval(0.9)) == nil)
        // Past it, the keys are read again and the new one works.
        let t1 = t0.addingTimeInterval(1.1)
        #expect(try await cache.key(for: second.secret, now: t1)?.id == second.key.id)

        _ = try await TestDatabase.withConnection(configuration) { connection in
            try AppKeyStore().revoke(String(second.key.id), on: connection)
        }
        // A known key is trusted until the refresh interval has passed, then read again.
        #expect(try await cache.key(for: second.secret, now: t1.addingTimeInterval(4.9))?.id == second.key.id)
        #expect(try await cache.key(for: second.secret, now: t1.addingTimeInterval(5.1)) == nil)
        #expect(try await cache.key(for: first.secret, now: t1.addingTimeInterval(5.2))?.id == first.key.id)
    }

    /// Requests that need the keys while a read runs wait for it: a burst of wrong keys once the
    /// miss interval has passed reads them once, where each used to open a connection of its own
    /// (a flood needing no key took PostgreSQL's connections).
    @Test func wrongKeysAtOnceReadTheKeysOnce() async throws {
        let (_, cache, key) = try await Self.loaded("key_cache_flood")
        #expect(cache.reads == 1)
        let later = Self.t0.addingTimeInterval(1.5)
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let secret = index == 39 ? key.secret : "om_wrong_\(index)"
                    return try await cache.key(for: secret, now: later) != nil
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(found == 1)
        #expect(cache.reads == 2)
    }
}
