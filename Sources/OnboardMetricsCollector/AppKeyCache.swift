import Foundation
import Logging
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsStore

/// The valid app keys by digest, read from PostgreSQL and read again every `refreshInterval`
/// (2 s by default: a revoked key stops working within it, well inside the 5 s the README promises
/// however long the revoking command and the request take) or at once for an unknown key, at most once per
/// `missInterval` (so a new key works at once, and a flood of wrong keys costs one query a second).
/// While the database cannot be reached it is tried at most once per `missInterval` too, so an
/// outage does not queue every request behind a connection attempt. Each read opens a
/// connection of its own (every few seconds at most), so no connection is shared between threads.
/// One read at a time: requests that need the keys while one runs wait for it (each wrong key
/// that came before the first read finished opened a connection of its own: a flood of them,
/// needing no key, took PostgreSQL's connections).
package final class AppKeyCache: Sendable {
    private let database: PostgresConfiguration
    let refreshInterval: TimeInterval
    private let missInterval: TimeInterval
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    private struct State: Sendable {
        var keys: [[UInt8]: AppKey] = [:]
        var loadedAt = Date.distantPast
        /// The last failed read and when it happened.
        var lastFailure: (at: Date, error: any Error)?
        /// The read under way, which requests that need the keys meanwhile wait for.
        var reading: Task<Void, any Error>?
        /// Reads started (for tests).
        var reads = 0
    }

    package init(
        database: PostgresConfiguration, refreshInterval: TimeInterval = 2, missInterval: TimeInterval = 1,
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
        let plan = state.withLockedValue { state -> Plan in
            let known = state.keys[digest]
            let age = now.timeIntervalSince(state.loadedAt)
            if let known, age < refreshInterval { return .answer(known) }
            if known == nil, age < missInterval { return .answer(nil) }
            // The database is down: keep accepting the keys known a moment ago.
            if let failure = state.lastFailure, now.timeIntervalSince(failure.at) < missInterval {
                return known.map { .answer($0) } ?? .failed(failure.error)
            }
            // This request reads the keys, or waits for the read under way.
            let reading = state.reading ?? Task { [self] in try await refresh(now: now) }
            state.reading = reading
            return .read(reading, known: known)
        }
        switch plan {
        case .answer(let key): return key
        case .failed(let error): throw error
        case .read(let reading, let known):
            do {
                try await reading.value
            } catch {
                if let known { return known }
                throw error
            }
            return state.withLockedValue { $0.keys[digest] }
        }
    }

    /// What a request for a key does.
    private enum Plan {
        case answer(AppKey?)
        case failed(any Error)
        case read(Task<Void, any Error>, known: AppKey?)
    }

    /// Loads the keys; a failure is logged and remembered, so requests do not all retry at once.
    /// Ends the read under way (``State/reading``) either way.
    func refresh(now: Date) async throws {
        defer { state.withLockedValue { $0.reading = nil } }
        do {
            try await load(now: now)
        } catch {
            let first = state.withLockedValue { state in
                defer { state.lastFailure = (now, error) }
                return state.lastFailure == nil
            }
            logger.log(
                level: first ? .warning : .debug, "app keys cannot be read; known keys stay valid",
                metadata: ["error": "\(error)"])
            throw error
        }
    }

    private func reload(now: Date) throws {
        let connection = try PostgresConnection(configuration: database)
        defer { connection.close() }
        state.withLockedValue { $0.reads += 1 }
        let fresh = try AppKeyStore().activeDigests(on: connection)
        let recovered = state.withLockedValue { state in
            defer {
                // A read started before the last one that finished is older: it changes nothing
                // (it could bring back a key revoked since).
                if now >= state.loadedAt {
                    state.keys = fresh
                    state.loadedAt = now
                }
                state.lastFailure = nil
            }
            return state.lastFailure != nil
        }
        if recovered { logger.notice("app keys readable again", metadata: ["keys": "\(fresh.count)"]) }
        logger.trace("app keys read", metadata: ["keys": "\(fresh.count)"])
    }

    /// Reads of the keys started so far (for tests).
    var reads: Int { state.withLockedValue { $0.reads } }
}
