import Foundation
import Testing

@testable import OnboardMetricsSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries: `429 Retry-After`, backoff with full jitter after `5xx`, network errors.
@Suite struct HTTPTransportRetryTests: HTTPTransportTestCase {
    // MARK: - Retry-After

    @Test func tooManyRequestsWaitsRetryAfterSeconds() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt == 0
                ? Self.failure(429, code: "rate_limited", message: "slow down", headers: ["Retry-After": "7"])
                : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        let events = Self.events(2)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 2 })
        #expect(observer.delays == [7])
        #expect(poster.requests.map(\.ids) == [events.map(\.eventID), events.map(\.eventID)])
        #expect(await transport.shutdown().retried == 1)
    }

    @Test func tooManyRequestsWaitsUntilARetryAfterDate() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt == 0
                ? Self.failure(
                    429, code: "rate_limited", message: "slow down",
                    headers: ["retry-after": "Wed, 21 Oct 2026 07:28:07 GMT"])
                : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        try transport.record(Self.events(1)[0])
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 1 })
        #expect(observer.delays == [7])
        await transport.shutdown()
    }

    @Test func retryAfterValuesAreReadInBothForms() {
        let now = Self.start
        #expect(HTTPTransport.retryAfter("120", now: now) == 120)
        #expect(HTTPTransport.retryAfter(" 0 ", now: now) == 0)
        #expect(HTTPTransport.retryAfter("Wed, 21 Oct 2026 07:28:07 GMT", now: now) == 7)
        #expect(HTTPTransport.retryAfter("Wednesday, 21-Oct-26 07:29:00 GMT", now: now) == 60)
        #expect(HTTPTransport.retryAfter("Wed Oct 21 07:28:30 2026", now: now) == 30)
        // A date already past means now; an absurd wait is capped at a day.
        #expect(HTTPTransport.retryAfter("Tue, 20 Oct 2026 07:28:00 GMT", now: now) == 0)
        #expect(HTTPTransport.retryAfter("99999999", now: now) == 86_400)
        #expect(HTTPTransport.retryAfter("soon", now: now) == nil)
        #expect(HTTPTransport.retryAfter("-5", now: now) == nil)
        #expect(HTTPTransport.retryAfter("", now: now) == nil)
    }

    @Test func whileRetryAfterRunsFlushDoesNotSend() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in
            Self.failure(429, code: "rate_limited", message: "slow down", headers: ["Retry-After": "3600"])
        }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in Self.events(3) { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await transport.flush() == false)
        #expect(poster.requests.count == 1)
        let counters = await transport.shutdown()
        #expect(poster.requests.count == 1)
        #expect(counters.queued == 3)
        #expect(counters.retried == 1)
    }

    // MARK: - Backoff

    @Test func serverErrorsBackOffExponentiallyWithFullJitterUpToTheMaximum() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt < 5 ? Self.failure(503, code: "unavailable", message: "database down") : Self.accept(batch)
        }
        let observer = Observer()
        // Jitter drawn at 0.5: half of each ceiling 1, 2, 4, 8, 8 (initial 1 s, maximum 8 s).
        let transport = try Self.transport(folder: path, poster: poster, observer: observer, random: { 0.5 })
        let events = Self.events(2)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 2 })
        #expect(observer.delays == [0.5, 1, 2, 4, 4])
        #expect(poster.requests.count == 6)
        #expect(poster.requests.allSatisfy { $0.ids == events.map(\.eventID) })
        // The first failure is logged with its reason; the success after failures too.
        #expect(observer.log.contains { $0.contains("503") && $0.contains("database down") })
        #expect(observer.log.contains { $0.contains("answers again") })
        let counters = await transport.shutdown()
        #expect(counters.retried == 5)
        #expect(counters.sent == 2)
    }

    @Test func aRetryAfterOnServiceUnavailableIsAFloorUnderTheBackoff() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt < 1
                ? Self.failure(503, code: "unavailable", message: "keys", headers: ["Retry-After": "5"])
                : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer, random: { 0.5 })
        try transport.record(Self.events(1)[0])
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 1 })
        #expect(observer.delays == [5])
        await transport.shutdown()
    }

    @Test func jitterStaysBetweenZeroAndTheCeiling() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            attempt < 8 ? Self.failure(500, code: "internal", message: "oops") : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(
            folder: path, poster: poster, observer: observer, random: { Double.random(in: 0...1) })
        try transport.record(Self.events(1)[0])
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 1 })
        let ceilings: [TimeInterval] = [1, 2, 4, 8, 8, 8, 8, 8]
        let delays = observer.delays
        #expect(delays.count == ceilings.count)
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay >= 0 && delay <= ceiling)
        }
        #expect(Set(delays).count > 1)
        await transport.shutdown()
    }

    @Test func networkErrorsResendTheSameIDsWithAFreshSentAt() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, attempt in
            if attempt == 0 { throw URLError(.timedOut) }
            return Self.accept(batch)
        }
        let observer = Observer()
        let clock = TestClock(Self.start, step: 1)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer, clock: clock)
        let events = Self.events(3)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(await Self.eventually { transport.counters.sent == 3 })
        let requests = poster.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.ids == events.map(\.eventID) })
        #expect(requests[0].sentAt != requests[1].sentAt)
        #expect(observer.log.contains { $0.contains("unreachable") })
        await transport.shutdown()
    }
}
