import Foundation
import Logging
import OnboardMetricsPostgres
import OnboardMetricsStore

/// The valid app keys by digest, read from PostgreSQL and read again every `refreshInterval`
/// (so a revoked key stops working within it) or at once for an unknown key, at most once per
/// `missInterval` (so a new key works at once, and a flood of wrong keys costs one query a second).
/// While the database cannot be reached it is tried at most once per `missInterval` too, so an
/// outage does not queue every request behind a connection attempt.
package final class AppKeyCache: @unchecked Sendable {
    private let database: PostgresConfiguration
    let refreshInterval: TimeInterval
    private let missInterval: TimeInterval
    // Guarded by `lock`.
    private let lock = NSLock()
    private var keys: [[UInt8]: AppKey] = [:]
    private var loadedAt = Date.distantPast
    /// The last failed read and when it happened.
    private var lastFailure: (at: Date, error: any Error)?
    // One connection, used by one loader at a time (`loader` is held for the whole query).
    private let loader = NSLock()
    private var connection: PostgresConnection?
    private let logger: Logger

    package init(
        database: PostgresConfiguration, refreshInterval: TimeInterval = 5, missInterval: TimeInterval = 1,
        logger: Logger = Logger(label: "onboardmetrics.keys")
    ) {
        self.database = database
        self.refreshInterval = refreshInterval
        self.missInterval = missInterval
        self.logger = logger
    }

    /// Loads the keys; they are taken as read at `now`, which is before the query runs, so the
    /// copy is never older than its stamp says.
    /// - Throws: `PostgresError`.
    package func load(now: Date = Date()) async throws {
        try await BlockingIO.run { [self] in try reload(now: now) }
    }

    /// The valid key whose secret is `secret`, `nil` when there is none.
    /// - Throws: `PostgresError` when the keys must be read and the database cannot be reached.
    package func key(for secret: String, now: Date = Date()) async throws -> AppKey? {
        let digest = AppKey.digest(of: secret)
        let (known, age, failure) = lock.withLock { (keys[digest], now.timeIntervalSince(loadedAt), lastFailure) }
        if let known, age < refreshInterval { return known }
        if known == nil, age < missInterval { return nil }
        // The database is down: keep accepting the keys known a moment ago.
        if let failure, now.timeIntervalSince(failure.at) < missInterval {
            if let known { return known }
            throw failure.error
        }
        do {
            try await refresh(now: now)
        } catch {
            if let known { return known }
            throw error
        }
        return lock.withLock { keys[digest] }
    }

    /// Loads the keys; a failure is logged and remembered, so requests do not all retry at once.
    func refresh(now: Date) async throws {
        do {
            try await load(now: now)
        } catch {
            let first = lock.withLock {
                defer { lastFailure = (now, error) }
                return lastFailure == nil
            }
            logger.log(
                level: first ? .warning : .debug, "app keys cannot be read; known keys stay valid",
                metadata: ["error": "\(error)"])
            throw error
        }
    }

    /// Closes the cache's connection (the service does at shutdown); a later read opens another.
    func close() async {
        _ = try? await BlockingIO.run { [self] in
            loader.withLock {
                connection?.close()
                connection = nil
            }
        }
    }

    private func reload(now: Date) throws {
        loader.lock()
        defer { loader.unlock() }
        do {
            if connection == nil { connection = try PostgresConnection(configuration: database) }
            guard let connection else { return }
            let fresh = try AppKeyStore().activeDigests(on: connection)
            let recovered = lock.withLock {
                defer {
                    keys = fresh
                    loadedAt = now
                    lastFailure = nil
                }
                return lastFailure != nil
            }
            if recovered { logger.notice("app keys readable again", metadata: ["keys": "\(fresh.count)"]) }
            logger.trace("app keys read", metadata: ["keys": "\(fresh.count)"])
        } catch {
            connection?.close()
            connection = nil
            throw error
        }
    }
}
