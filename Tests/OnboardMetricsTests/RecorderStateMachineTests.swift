import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// The recorder's rules without a database, threads or a clock: the machine is driven with what
/// its writers would report, and its actions are asserted (the database tests cover the I/O).
@Suite struct RecorderStateMachineTests {
    typealias Machine = RecorderStateMachine
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func machine(
        batchSize: Int = 5, writers: Int = 2, maximumBuffered: Int = 100, spool: Bool = false,
        spoolHasData: Bool = false
    ) -> Machine {
        Machine(
            settings: .init(
                batchSize: batchSize, writerCount: writers, maximumBufferedEvents: maximumBuffered, flushInterval: 1,
                hasSpool: spool, backoff: Backoff(initial: 0.1, maximum: 30, jitter: .equal)),
            spoolHasData: spoolHasData, now: start)
    }

    static func event(_ number: Int) -> Event {
        Event(
            eventID: UUID(), sessionID: UUID(), userID: "u\(number)", seq: number, kind: .custom, name: "e",
            occurredAt: start)
    }

    /// Records `count` events; returns their ordinals.
    @discardableResult
    static func record(_ count: Int, into machine: inout Machine) -> [Int] {
        (0..<count).map { number in
            guard case .enqueued(let ordinal) = machine.record(event(number), waiter: 1_000 + number).0 else {
                Issue.record("event \(number) was not queued")
                return -1
            }
            return ordinal
        }
    }

    /// The batch a writer takes now, connecting it first when it asks to.
    static func take(_ writer: Int, _ machine: inout Machine, at now: Date = start) -> Machine.Work? {
        guard case .work(let work) = machine.nextStep(writer: writer, now: now, stamp: now).0 else { return nil }
        if work.connect { _ = machine.connected(writer: writer) }
        return work
    }

    /// A full spool during an outage (issue 59): the batch stays in memory, callers waiting for
    /// room are woken and refused (`.spoolFull`) rather than kept waiting, and a reconnect ends it.
    @Test func aFullSpoolRefusesNewEventsUntilAWriterReconnects() throws {
        var machine = Self.machine(batchSize: 5, writers: 1, maximumBuffered: 10, spool: true)
        Self.record(10, into: &machine)
        let work = try #require(Self.take(0, &machine))
        _ = machine.failed(writer: 0, now: Self.start, random: 0.5)
        // The queue fills again while the writer tries to spool its batch: a caller waits for room.
        Self.record(5, into: &machine)
        guard case .waitForRoom = machine.record(Self.event(15), waiter: 1).0 else {
            Issue.record("a full queue should make the caller wait")
            return
        }
        #expect(!machine.isSaturated)
        let effects = machine.spoolRefused(work.batch)
        #expect(machine.isSaturated)
        #expect(effects.rooms == [1])
        #expect(machine.queue.count == 15)
        #expect(machine.record(Self.event(6), waiter: 2).0 == .spoolFull)
        #expect(machine.counters.dropped == 0)
        _ = machine.connected(writer: 0)
        #expect(!machine.isSaturated)
        #expect(machine.record(Self.event(7), waiter: 3).0 == .waitForRoom)
    }

    @Test func aMarkedFlushWaitsForItsOwnEventsNotForAnEarlierBatchHeldUp() throws {
        var machine = Self.machine()
        // A writer without a connection takes no batch (only writer 0 does, to spool it).
        _ = machine.connected(writer: 1)
        Self.record(10, into: &machine)
        let first = try #require(Self.take(0, &machine))
        let second = try #require(Self.take(1, &machine))
        #expect(first.batch.map(\.ordinal) == Array(0..<5))
        #expect(second.batch.map(\.ordinal) == Array(5..<10))
        // Writer 1 commits first: a flush of its own events returns at once, a flush of all waits.
        _ = machine.settle(second.batch.map(\.ordinal), committed: 5)
        let ownFlush = machine.flush(ordinals: 5..<10, waiter: 1)
        #expect(ownFlush.0 == true)
        let allFlush = machine.flush(ordinals: nil, waiter: 2)
        #expect(allFlush.0 == nil)
        let effects = machine.settle(first.batch.map(\.ordinal), committed: 5)
        #expect(effects.flushes == [.init(waiter: 2, allCommitted: true)])
        #expect(machine.counters.committed == 10)
    }

    @Test func sendingAndReceivingAreStampedWhereTheEventHasNone() throws {
        var machine = Self.machine(batchSize: 1)
        var sent = Self.event(0)
        sent.sentAt = Self.start.addingTimeInterval(-5)
        _ = machine.record(sent, waiter: 1)
        _ = machine.record(Self.event(1), waiter: 2)
        let stamp = Self.start.addingTimeInterval(3)
        guard case .work(let work) = machine.nextStep(writer: 0, now: Self.start, stamp: stamp).0 else {
            Issue.record("no work")
            return
        }
        #expect(work.batch.first?.event.sentAt == Self.start.addingTimeInterval(-5))
        #expect(work.batch.first?.event.receivedAt == Self.start.addingTimeInterval(-5))
        guard case .work(let next) = machine.nextStep(writer: 0, now: Self.start, stamp: stamp).0 else {
            Issue.record("no work")
            return
        }
        #expect(next.batch.first?.event.sentAt == stamp)
    }

    @Test func lessThanABatchWaitsForTheFlushIntervalOrAFlush() throws {
        var machine = Self.machine()
        Self.record(3, into: &machine)
        let step = machine.nextStep(writer: 0, now: Self.start, stamp: Self.start)
        #expect(step.0 == .wait(until: Self.start + 1))
        // A flush wakes the writers and makes the partial batch due.
        let (result, effects) = machine.flush(ordinals: nil, waiter: 7)
        #expect(result == nil)
        #expect(Set(effects.wake) == [0, 1])
        let work = try #require(Self.take(0, &machine))
        #expect(work.batch.count == 3)
        let settled = machine.settle(work.batch.map(\.ordinal), committed: 3)
        #expect(settled.flushes == [.init(waiter: 7, allCommitted: true)])
    }

    @Test func anOutageSpoolsInRecordingOrderAndAFlushWaitsForOneMoreAttempt() throws {
        var machine = Self.machine(spool: true)
        Self.record(5, into: &machine)
        // Writer 1 has no connection: it only tries to connect, and takes nothing.
        guard case .work(let other) = machine.nextStep(writer: 1, now: Self.start, stamp: Self.start).0 else {
            Issue.record("writer 1 has no work")
            return
        }
        #expect(other.connect && other.batch.isEmpty && !other.takesBatches)
        _ = machine.connectFailed(writer: 1, now: Self.start, random: 0)
        // Writer 0 cannot connect either: it takes the batch and, having the spool, spools it.
        guard case .work(let work) = machine.nextStep(writer: 0, now: Self.start, stamp: Self.start).0 else {
            Issue.record("writer 0 has no work")
            return
        }
        #expect(work.connect && work.batch.count == 5)
        _ = machine.connectFailed(writer: 0, now: Self.start, random: 0)
        #expect(machine.spools(writer: 0) && !machine.spools(writer: 1))
        let flush = machine.flush(ordinals: nil, waiter: 9)
        #expect(flush.0 == nil)
        _ = machine.spooled(work.batch, dropped: 0)
        #expect(machine.counters.spooled == 5)
        // Spooled counts as settled, but with the database unreachable the flush waits for the
        // next connection attempt, then returns false: the events are durable, not committed.
        let laterFlush = machine.flush(ordinals: nil, waiter: 10)
        #expect(laterFlush.0 == nil)
        let (_, attempt) = machine.connectFailed(writer: 0, now: Self.start + 1, random: 0)
        #expect(
            Set(attempt.flushes) == [.init(waiter: 9, allCommitted: false), .init(waiter: 10, allCommitted: false)])
    }

    @Test func aConnectedWriterDrainsTheSpoolAloneAndAFlushThenSucceeds() {
        var machine = Self.machine(spool: true, spoolHasData: true)
        _ = machine.connected(writer: 0)
        _ = machine.connected(writer: 1)
        let firstClaims = machine.claimSpoolDrain(writer: 0)
        #expect(firstClaims)
        let secondClaims = machine.claimSpoolDrain(writer: 1)
        #expect(!secondClaims)
        let flush = machine.flush(ordinals: nil, waiter: 3)
        #expect(flush.0 == nil)
        let effects = machine.drainEnded(spoolEmpty: true)
        #expect(effects.flushes == [.init(waiter: 3, allCommitted: true)])
        let secondClaimsAfter = machine.claimSpoolDrain(writer: 1)
        #expect(!secondClaimsAfter)
    }

    @Test func aFullQueueMakesRecordWaitUntilAWriterTakesABatch() throws {
        var machine = Self.machine(batchSize: 2, maximumBuffered: 3)
        Self.record(3, into: &machine)
        let (action, effects) = machine.record(Self.event(3), waiter: 42)
        #expect(action == .waitForRoom)
        // The writers were woken when the queue first held a batch; they are not woken twice.
        #expect(effects.wake.isEmpty && machine.writers.allSatisfy(\.wakePending))
        let (_, taken) = machine.nextStep(writer: 0, now: Self.start, stamp: Self.start)
        #expect(taken.rooms == [42])
        let retried = machine.record(Self.event(3), waiter: 42)
        #expect(retried.0 == .enqueued(ordinal: 3))
    }

    @Test func backoffCeilingsDoubleWithEqualJitterAndTheFirstAndEveryTenthFailureIsLogged() {
        var machine = Self.machine(writers: 1)
        var delays: [Double] = []
        var logged: [Int] = []
        for failure in 1...12 {
            let (retry, _) = machine.connectFailed(
                writer: 0, now: Self.start, random: failure.isMultiple(of: 2) ? 1 : 0)
            delays.append(retry.delay)
            if retry.log { logged.append(retry.failures) }
        }
        // Ceiling 0.1 · 2^(n−1), at most 30; random 0 gives half the ceiling, random 1 all of it.
        let expected: [Double] = [0.05, 0.2, 0.2, 0.8, 0.8, 3.2, 3.2, 12.8, 12.8, 30, 15, 30]
        for (delay, want) in zip(delays, expected) { #expect(abs(delay - want) < 1e-9, "\(delays)") }
        #expect(logged == [1, 10])
        #expect(machine.counters.retried == 12)
        // No attempt before the backoff is over; writer 0 still takes the batch (to spool or requeue).
        Self.record(1, into: &machine)
        _ = machine.flush(ordinals: nil, waiter: 1)
        guard case .work(let early) = machine.nextStep(writer: 0, now: Self.start + 29, stamp: Self.start).0 else {
            Issue.record("no work")
            return
        }
        #expect(!early.connect && early.batch.count == 1)
        _ = machine.requeue(early.batch)
        guard case .work(let late) = machine.nextStep(writer: 0, now: Self.start + 30, stamp: Self.start).0 else {
            Issue.record("no work")
            return
        }
        #expect(late.connect)
    }

    @Test func shutdownWithoutSpoolOrConnectionDropsTheQueueCountedAndStops() throws {
        var machine = Self.machine(batchSize: 5, writers: 1)
        Self.record(3, into: &machine)
        let (final, effects) = machine.shutdown(waiter: 77)
        #expect(final == nil && effects.wake == [0])
        let late = machine.record(Self.event(9), waiter: 78)
        #expect(late.0 == .shutDown)
        let work = try #require(Self.take(0, &machine))
        _ = machine.failed(writer: 0, now: Self.start, random: 0)
        _ = machine.requeue(work.batch)
        let (stop, dropped, _) = machine.endRound(writer: 0, work: work)
        #expect(dropped == 3 && !stop)
        #expect(machine.counters.dropped == 3)
        guard case .work(let last) = machine.nextStep(writer: 0, now: Self.start, stamp: Self.start).0 else {
            Issue.record("a shutting-down writer always has work")
            return
        }
        #expect(last.finishing && last.batch.isEmpty)
        let round = machine.endRound(writer: 0, work: last)
        #expect(round.stop)
        let stopped = machine.writerStopped(0)
        #expect(stopped.last)
        let finished = machine.finish()
        #expect(finished.stops == [77])
        let again = machine.shutdown(waiter: nil)
        #expect(again.0 == machine.counters)
    }

    @Test func stoppingResolvesEveryWaiter() {
        var machine = Self.machine(writers: 1)
        Self.record(2, into: &machine)
        _ = machine.flush(ordinals: nil, waiter: 5)
        _ = machine.shutdown(waiter: 6)
        let (last, stopping) = machine.writerStopped(0)
        #expect(last && stopping.flushes.isEmpty)
        let effects = machine.finish()
        #expect(effects.flushes == [.init(waiter: 5, allCommitted: false)])
        #expect(effects.stops == [6])
    }

    /// A collector answers once its request's events are durable: during an outage a marked flush
    /// does not wait for the next reconnect attempt (which the backoff may put seconds away).
    @Test func aMarkedFlushDuringAnOutageIsAnsweredOnceItsEventsAreSpooled() throws {
        var machine = Self.machine(batchSize: 3, writers: 1, spool: true)
        Self.record(3, into: &machine)
        guard case .work(let work) = machine.nextStep(writer: 0, now: Self.start, stamp: Self.start).0 else {
            Issue.record("no work")
            return
        }
        _ = machine.connectFailed(writer: 0, now: Self.start, random: 0)
        let marked = machine.flush(ordinals: 0..<3, waiter: 1)
        let everything = machine.flush(ordinals: nil, waiter: 2)
        #expect(marked.0 == nil && everything.0 == nil)
        let spooled = machine.spooled(work.batch, dropped: 0)
        // Spooled, not committed: the marked flush returns false at once; flush() waits for an attempt.
        #expect(spooled.flushes == [.init(waiter: 1, allCommitted: false)])
        let (_, attempt) = machine.connectFailed(writer: 0, now: Self.start + 1, random: 0)
        #expect(attempt.flushes == [.init(waiter: 2, allCommitted: false)])
    }
}
