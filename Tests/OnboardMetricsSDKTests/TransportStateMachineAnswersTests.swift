import Foundation
import Testing

@testable import OnboardMetricsSDK

/// What each answer of the collector does, driven through ``TransportStateMachine`` alone: the
/// verdict on the batch, the delay before the next attempt, the counters and the log lines.
@Suite struct TransportStateMachineAnswersTests: TransportStateMachineTestCase {
    /// A network failure with a known description.
    struct Offline: LocalizedError {
        var errorDescription: String? { "the network is down" }
    }

    // MARK: - Settled

    @Test func a200SettlesEachEventAsItsResultSays() throws {
        let start = Self.queued(4)
        var machine = start.machine
        let batch = start.batch
        let (plan, actions) = try #require(
            Self.exchange(&machine, batch, answer: Self.accepted(batch, rejecting: [1, 3]), now: Self.t0))
        #expect(plan.verdict == .settle(sent: 2, rejected: 2))
        #expect(
            plan.log
                == [1, 3].map { index in
                    "event \(batch.events[index].eventID.uuidString.lowercased()) (index \(index) of the batch) "
                        + "rejected by the collector: missing user_id: is empty; dropped it"
                })
        let flush = try #require(start.flush)
        #expect(actions.resumeFlushes == [.init(id: flush, flushed: true)])
        #expect(machine.counters.sent == 2)
        #expect(machine.counters.rejected == 2)
        #expect(machine.counters.queued == 0)
        #expect(machine.counters.retried == 0)
    }

    @Test func aRejectionWithoutAnIDNamesTheBatchsEventAtItsIndex() throws {
        let start = Self.queued(3)
        var machine = start.machine
        let response = BatchResponse(results: [
            .init(index: 0, eventID: nil, status: .rejected),
            .init(index: 1, eventID: nil, status: .accepted),
            .init(index: 9, eventID: nil, status: .rejected),
        ])
        let body = try JSONEncoder().encode(response)
        let plan = try #require(Self.post(&machine, start.batch, answer: Self.reply(200, body: body), now: Self.t0))
        #expect(plan.verdict == .settle(sent: 1, rejected: 2))
        let first = start.batch.events[0].eventID.uuidString.lowercased()
        #expect(
            plan.log == [
                "event \(first) (index 0 of the batch) rejected by the collector: ? no reason given; dropped it",
                "event ? (index 9 of the batch) rejected by the collector: ? no reason given; dropped it",
            ])
    }

    @Test func anUnreadableAnswerIsRetried() throws {
        let start = Self.queued(2)
        var machine = start.machine
        let plan = try #require(
            Self.post(&machine, start.batch, answer: Self.reply(200, body: Data("oops".utf8)), now: Self.t0))
        #expect(plan.verdict == .retry(after: 0.5, serverAsked: false))
        #expect(
            plan.log == [
                "the collector's answer could not be read as a batch response; retrying in 0.50 s "
                    + "(failed attempts in a row: 1)"
            ])
    }

    // MARK: - 413

    @Test func a413SplitsTheBatchInHalvesWithoutCountingAFailure() throws {
        let start = Self.queued(5)
        var machine = start.machine
        let tooLarge = Self.failure(413, code: "payload_too_large", message: "at most 1 MiB")
        let (plan, actions) = try #require(Self.exchange(&machine, start.batch, answer: tooLarge, now: Self.t0))
        #expect(plan.verdict == .split)
        #expect(plan.log.isEmpty)
        #expect(actions.resumeFlushes.isEmpty)
        #expect(machine.putBackBatches == 2)
        #expect(machine.failedAttempts == 0)
        #expect(machine.counters.retried == 0)
        #expect(machine.counters.queued == 5)
        // The halves go at once, one after the other.
        let (first, second) = start.batch.halves()
        #expect(first.count == 3)
        #expect(second.count == 2)
        let (_, settled) = try #require(Self.exchange(&machine, first, answer: Self.accepted(first), now: Self.t0))
        #expect(settled.resumeFlushes.isEmpty)
        #expect(machine.putBackBatches == 1)
        let (_, done) = try #require(Self.exchange(&machine, second, answer: Self.accepted(second), now: Self.t0))
        #expect(machine.putBackBatches == 0)
        let flush = try #require(start.flush)
        #expect(done.resumeFlushes == [.init(id: flush, flushed: true)])
    }

    @Test func aLoneEventTooLargeIsDroppedAsRejected() throws {
        let start = Self.queued(1)
        var machine = start.machine
        let tooLarge = Self.failure(413, code: "payload_too_large", message: "at most 1 MiB")
        let (plan, actions) = try #require(Self.exchange(&machine, start.batch, answer: tooLarge, now: Self.t0))
        #expect(plan.verdict == .settle(sent: 0, rejected: 1))
        let id = start.batch.events[0].eventID.uuidString.lowercased()
        #expect(
            plan.log == [
                "event \(id) (\(start.batch.bytes) bytes) is too large for the collector "
                    + "(413 payload_too_large: at most 1 MiB); dropped it"
            ])
        let flush = try #require(start.flush)
        #expect(actions.resumeFlushes == [.init(id: flush, flushed: true)])
        #expect(machine.counters.rejected == 1)
        #expect(machine.counters.queued == 0)
    }

    // MARK: - 429

    @Test func a429WaitsExactlyItsRetryAfterAndAFlushDuringItReturnsFalseWithoutSending() throws {
        let start = Self.queued(2)
        var machine = start.machine
        let limited = Self.failure(429, code: "rate_limited", message: "slow down", headers: ["Retry-After": "7"])
        let (plan, actions) = try #require(Self.exchange(&machine, start.batch, answer: limited, now: Self.t0))
        #expect(plan.verdict == .retry(after: 7, serverAsked: true))
        #expect(plan.log == ["the collector is rate limiting; waiting 7.00 s as its Retry-After asks"])
        let flush = try #require(start.flush)
        #expect(actions.resumeFlushes == [.init(id: flush, flushed: false)])
        #expect(machine.retryAfterUntil == Self.t0.addingTimeInterval(7))

        let during = Self.t0.addingTimeInterval(3)
        #expect(machine.flush(now: during) == .done(false))
        #expect(machine.flushWaiters.isEmpty)
        guard case .wait(let until) = machine.nextAction(now: during) else {
            Issue.record("sent during the Retry-After")
            return
        }
        #expect(until == Self.t0.addingTimeInterval(7))
        // No backoff growth: the next failure is the first in a row.
        let unavailable = Self.failure(503, code: "unavailable", message: "down")
        let next = try #require(Self.post(&machine, start.batch, answer: unavailable, now: until, random: 1))
        #expect(next.verdict == .retry(after: 1, serverAsked: false))
    }

    @Test func a429ReadsARetryAfterDateAgainstTheClock() throws {
        let start = Self.queued(1)
        var machine = start.machine
        let limited = Self.failure(
            429, code: "rate_limited", message: "slow down", headers: ["retry-after": "Wed, 21 Oct 2026 07:28:07 GMT"])
        let plan = try #require(
            Self.post(&machine, start.batch, answer: limited, now: Self.t0, clock: Self.t0.addingTimeInterval(2)))
        #expect(plan.verdict == .retry(after: 5, serverAsked: true))
    }

    @Test func a429WithoutAReadableRetryAfterBacksOff() throws {
        for headers in [[:], ["Retry-After": "soon"]] {
            let start = Self.queued(1)
            var machine = start.machine
            let limited = Self.failure(429, code: "rate_limited", message: "slow down", headers: headers)
            let plan = try #require(Self.post(&machine, start.batch, answer: limited, now: Self.t0, random: 0.25))
            #expect(plan.verdict == .retry(after: 0.25, serverAsked: false))
            #expect(
                plan.log == [
                    "the collector is rate limiting (429 rate_limited: slow down); retrying in 0.25 s "
                        + "(failed attempts in a row: 1)"
                ])
        }
    }

    @Test func onlyTheAnswersThatHonourRetryAfterReadIt() {
        let header = ["RETRY-AFTER": "7"]
        for status in [408, 429, 500, 503] {
            #expect(Machine.retryAfterValue(of: Self.reply(status, headers: header)) == "7")
        }
        for status in [200, 302, 400, 401, 413] {
            #expect(Machine.retryAfterValue(of: Self.reply(status, headers: header)) == nil)
        }
        #expect(Machine.retryAfterValue(of: Self.reply(429)) == nil)
        #expect(Machine.retryAfterValue(of: .failure(Offline())) == nil)
    }

    // MARK: - 401, 403

    @Test func aRefusedKeyRetriesAtTheMaximumBackoffAndAFlushCutsItShort() throws {
        let start = Self.queued(4)
        var machine = start.machine
        let refused = Self.failure(401, code: "unauthorized", message: "unknown app key")
        let (plan, actions) = try #require(
            Self.exchange(&machine, start.batch, answer: refused, now: Self.t0, random: 0))
        #expect(plan.verdict == .retry(after: 8, serverAsked: false))
        #expect(
            plan.log == [
                "the collector refused the app key (401 unauthorized: unknown app key): check the key; "
                    + "4 events stay queued, retrying in 8.00 s (attempt 1)"
            ])
        let flush = try #require(start.flush)
        #expect(actions.resumeFlushes == [.init(id: flush, flushed: false)])
        #expect(machine.nextAttempt == Self.t0.addingTimeInterval(8))
        #expect(machine.retryAfterUntil == .distantPast)

        let later = Self.t0.addingTimeInterval(1)
        _ = try #require(Self.waitingFlush(&machine, now: later))
        let forbidden = Self.failure(403, code: "forbidden", message: "revoked")
        let second = try #require(Self.exchange(&machine, start.batch, answer: forbidden, now: later, random: 1))
        #expect(second.plan.verdict == .retry(after: 8, serverAsked: false))
        #expect(second.plan.log.first?.hasSuffix("retrying in 8.00 s (attempt 2)") == true)
        #expect(second.plan.log.first?.contains("(403 forbidden: revoked)") == true)

        _ = try #require(Self.waitingFlush(&machine, now: later))
        let third = try #require(
            Self.exchange(&machine, start.batch, answer: Self.accepted(start.batch), now: later))
        #expect(third.plan.log == ["the collector answers again after 2 failed attempts"])
        #expect(machine.counters.retried == 2)
        #expect(machine.counters.sent == 4)
    }

    // MARK: - 5xx, 408, network errors

    @Test(arguments: [0.0, 0.75, 1.0])
    func serverErrorsRetryWithCeilingsDoublingUpToTheMaximum(random: Double) throws {
        let start = Self.queued(2)
        var machine = start.machine
        let unavailable = Self.failure(503, code: "unavailable", message: "database down")
        var now = Self.t0
        var delays: [TimeInterval] = []
        var log: [String] = []
        for _ in 1...12 {
            let (plan, _) = try #require(
                Self.exchange(&machine, start.batch, answer: unavailable, now: now, random: random))
            guard case .retry(let delay, let serverAsked) = plan.verdict else {
                Issue.record("expected a retry")
                return
            }
            #expect(!serverAsked)
            delays.append(delay)
            log += plan.log
            now = machine.nextAttempt
        }
        // initial 1 s, doubling per failure in a row, at most 8 s; full jitter scales by `random`.
        let expected = (1...12).map { failures in min(8, 1 * pow(2, Double(failures - 1))) * random }
        #expect(delays == expected)
        #expect(Array(delays.prefix(5)) == [1, 2, 4, 8, 8].map { $0 * random })
        // Logged on the first failure and every tenth.
        #expect(
            log == [
                "the collector answered 503 unavailable: database down; retrying in "
                    + "\(String(format: "%.2f", random)) s (failed attempts in a row: 1)",
                "the collector answered 503 unavailable: database down; retrying in "
                    + "\(String(format: "%.2f", 8 * random)) s (failed attempts in a row: 10)",
            ])
        #expect(machine.counters.retried == 12)

        // An answer ends the run: the next failure starts again from the first ceiling.
        let ok = try #require(Self.exchange(&machine, start.batch, answer: Self.accepted(start.batch), now: now))
        #expect(ok.plan.log == ["the collector answers again after 12 failed attempts"])
        #expect(machine.nextAttempt == .distantPast)
        _ = machine.record(Self.events(1, offset: 2), now: now)
        _ = Self.waitingFlush(&machine, now: now)
        Self.persist(&machine, now: now)
        let again = try #require(
            Self.post(&machine, Self.batch(Self.events(1)), answer: unavailable, now: now, random: random))
        #expect(again.verdict == .retry(after: 1 * random, serverAsked: false))
    }

    @Test func aRetryAfterOnA503IsAFloorUnderTheBackoff() throws {
        let start = Self.queued(1)
        var machine = start.machine
        let unavailable = Self.failure(503, code: "unavailable", message: "keys", headers: ["Retry-After": "5"])
        var now = Self.t0
        var delays: [TimeInterval] = []
        for random in [0.5, 1, 1, 1] {
            let (plan, _) = try #require(
                Self.exchange(&machine, start.batch, answer: unavailable, now: now, random: random))
            guard case .retry(let delay, let serverAsked) = plan.verdict else {
                Issue.record("expected a retry")
                return
            }
            // A floor, not a wait the server imposes: a flush may still cut it short.
            #expect(!serverAsked)
            delays.append(delay)
            now = machine.nextAttempt
        }
        // Ceilings 1, 2, 4, 8 drawn at 0.5, 1, 1, 1: 0.5, 2, 4, 8 — never under 5.
        #expect(delays == [5, 5, 5, 8])
        #expect(machine.retryAfterUntil == .distantPast)
    }

    @Test func requestTimeoutsAndNetworkErrorsRetryWithBackoff() throws {
        var timedOut = Self.queued(1)
        let timeout = Self.failure(408, code: "timeout", message: "too slow")
        let plan = try #require(Self.post(&timedOut.machine, timedOut.batch, answer: timeout, now: Self.t0))
        #expect(plan.verdict == .retry(after: 0.5, serverAsked: false))
        #expect(plan.log.first?.hasPrefix("the collector answered 408 timeout: too slow; retrying in 0.50 s") == true)

        var offline = Self.queued(1)
        let failed = try #require(
            Self.post(&offline.machine, offline.batch, answer: .failure(Offline()), now: Self.t0, random: 0.25))
        #expect(failed.verdict == .retry(after: 0.25, serverAsked: false))
        #expect(
            failed.log == [
                "the collector is unreachable (the network is down); retrying in 0.25 s (failed attempts in a row: 1)"
            ])
    }

    // MARK: - Other answers

    @Test(arguments: [400, 404, 409, 422])
    func anotherClientErrorDropsTheBatchAsRejected(status: Int) throws {
        let start = Self.queued(3)
        var machine = start.machine
        let refused = Self.failure(status, code: "malformed", message: "events must be an array")
        let (plan, actions) = try #require(Self.exchange(&machine, start.batch, answer: refused, now: Self.t0))
        #expect(plan.verdict == .settle(sent: 0, rejected: 3))
        #expect(
            plan.log == [
                "the collector refused a batch of 3 events (\(status) malformed: events must be an array); dropped them"
            ])
        let flush = try #require(start.flush)
        #expect(actions.resumeFlushes == [.init(id: flush, flushed: true)])
        #expect(machine.counters.rejected == 3)
        #expect(machine.counters.queued == 0)
        #expect(machine.counters.retried == 0)
    }

    @Test func aRefusedBatchEndsARunOfFailures() throws {
        let start = Self.queued(3)
        var machine = start.machine
        let unavailable = Self.failure(503, code: "unavailable", message: "down")
        _ = try #require(Self.exchange(&machine, start.batch, answer: unavailable, now: Self.t0))
        let refused = Self.failure(400, code: "malformed", message: "events must be an array")
        let (plan, _) = try #require(
            Self.exchange(&machine, start.batch, answer: refused, now: machine.nextAttempt))
        #expect(plan.log.last == "the collector answers again after 1 failed attempts")
        #expect(machine.consecutiveFailures == 0)
        #expect(machine.nextAttempt == .distantPast)
    }

    @Test func aBodyThatIsNotAnErrorResponseIsQuotedAsText() throws {
        let start = Self.queued(2)
        var machine = start.machine
        let plan = try #require(
            Self.post(&machine, start.batch, answer: Self.reply(404, body: Data("no such route".utf8)), now: Self.t0))
        #expect(plan.log == ["the collector refused a batch of 2 events (404 no such route); dropped them"])
    }

    @Test(arguments: [101, 302, 304])
    func anUnexpectedStatusIsRetried(status: Int) throws {
        let start = Self.queued(2)
        var machine = start.machine
        let plan = try #require(Self.post(&machine, start.batch, answer: Self.reply(status), now: Self.t0))
        #expect(plan.verdict == .retry(after: 0.5, serverAsked: false))
        #expect(
            plan.log == [
                "the collector answered an unexpected \(status); retrying in 0.50 s (failed attempts in a row: 1)"
            ])
    }

    @Test func theDelayWaitedIsTheOneTheTransportReports() throws {
        let start = Self.queued(1)
        var machine = start.machine
        let limited = Self.failure(429, code: "rate_limited", message: "slow down", headers: ["Retry-After": "60"])
        _ = try #require(Self.post(&machine, start.batch, answer: limited, now: Self.t0))
        _ = machine.answerApplied(waited: 0.001, now: Self.t0)
        #expect(machine.nextAttempt == Self.t0.addingTimeInterval(0.001))
        #expect(machine.retryAfterUntil == Self.t0.addingTimeInterval(0.001))
    }
}
