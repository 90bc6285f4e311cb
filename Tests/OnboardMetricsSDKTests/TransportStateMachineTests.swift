import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The transport's rules for recording, flushing, the disk and shutting down, driven through
/// ``TransportStateMachine`` alone: no thread, network or disk.
@Suite struct TransportStateMachineTests: TransportStateMachineTestCase {
    // MARK: - flush

    @Test func aFlushIsResumedTrueOnceEverythingRecordedBeforeItSettles() throws {
        var machine = Self.machine { $0.batchSize = 3 }
        let before = Self.events(3)
        _ = machine.record(before, now: Self.t0)
        let id = try #require(Self.waitingFlush(&machine, now: Self.t0))
        // Recorded after the call: the flush does not wait for these.
        _ = machine.record(Self.events(2, offset: 3), now: Self.t0)
        #expect(Self.persist(&machine, now: Self.t0).map(\.seq) == [1, 2, 3, 4, 5])
        #expect(machine.flushWaiters.map(\.id) == [id])

        let batch = Self.batch(before)
        let (plan, actions) = try #require(
            Self.exchange(&machine, batch, answer: Self.accepted(batch), now: Self.t0))
        #expect(plan.verdict == .settle(sent: 3, rejected: 0))
        #expect(actions.resumeFlushes == [.init(id: id, flushed: true)])
        #expect(machine.counters.sent == 3)
        #expect(machine.counters.queued == 2)
    }

    @Test func aFlushIsResumedFalseAfterAFailedAttemptAndTheNextOneCutsTheBackoffShort() throws {
        let start = Self.queued(2)
        var machine = start.machine
        let id = try #require(start.flush)
        let batch = start.batch
        let (plan, actions) = try #require(
            Self.exchange(
                &machine, batch, answer: Self.failure(503, code: "unavailable", message: "down"), now: Self.t0))
        #expect(plan.verdict == .retry(after: 0.5, serverAsked: false))
        #expect(actions.resumeFlushes == [.init(id: id, flushed: false)])
        #expect(machine.counters.queued == 2)
        #expect(machine.counters.retried == 1)
        #expect(machine.flushKick == false)

        // Without a flush the worker waits out the backoff; a flush attempts at once.
        guard case .wait(let until) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a wait")
            return
        }
        #expect(until == Self.t0.addingTimeInterval(0.5))
        let again = try #require(Self.waitingFlush(&machine, now: Self.t0))
        let (_, done) = try #require(Self.exchange(&machine, batch, answer: Self.accepted(batch), now: Self.t0))
        #expect(done.resumeFlushes == [.init(id: again, flushed: true)])
    }

    @Test func aFlushWithNothingToSendReturnsAtOnce() {
        var machine = Self.machine()
        #expect(machine.flush(now: Self.t0) == .done(true))
        #expect(machine.flushWaiters.isEmpty)
        #expect(!machine.flushKick)
    }

    // MARK: - The buffer

    @Test func overItsCapacityTheBufferDropsTheOldestAndCountsThem() {
        var machine = Self.machine { $0.maximumBufferedEvents = 3 }
        _ = machine.record(Self.events(5), now: Self.t0)
        #expect(machine.counters.recorded == 5)
        #expect(machine.counters.dropped == 2)
        #expect(machine.counters.buffered == 3)
        _ = machine.record(Self.events(1, offset: 5), now: Self.t0)
        #expect(machine.counters.dropped == 3)
        #expect(machine.counters.buffered == 3)
        #expect(machine.counters.queued == 0)
        _ = machine.flush(now: Self.t0)
        #expect(Self.persist(&machine, now: Self.t0).map(\.seq) == [4, 5, 6])
        #expect(machine.counters.queued == 3)
    }

    @Test func recordingWakesTheWorkerOnlyWhenItHasSomethingNewAndNeverTwice() {
        var machine = Self.machine { $0.batchSize = 3 }
        func wakes(_ decision: Machine.RecordDecision) -> Bool {
            guard case .accepted(let actions) = decision else { return false }
            return actions.wakeWorker
        }
        // The first event schedules the disk write.
        #expect(wakes(machine.record(Self.events(1), now: Self.t0)))
        guard case .wait(let until) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a wait")
            return
        }
        #expect(until == Self.t0.addingTimeInterval(1))
        #expect(!wakes(machine.record(Self.events(1, offset: 1), now: Self.t0)))
        // A complete batch wakes it at once; while that signal is pending, nothing signals again.
        #expect(wakes(machine.record(Self.events(1, offset: 2), now: Self.t0)))
        #expect(!wakes(machine.record(Self.events(1, offset: 3), now: Self.t0)))
        guard case .waiting(_, let actions) = machine.flush(now: Self.t0) else {
            Issue.record("expected the flush to wait")
            return
        }
        #expect(!actions.wakeWorker)
    }

    @Test func theBufferGoesToDiskAfterTheDelayAndAPartialBatchAfterTheInterval() {
        var machine = Self.machine { $0.flushInterval = 5 }
        #expect(machine.settings.persistDelay == 1)
        let start = Self.t0.addingTimeInterval(2)
        _ = machine.record(Self.events(1), now: start)
        guard case .wait(let persistAt) = machine.nextAction(now: start) else {
            Issue.record("expected a wait")
            return
        }
        #expect(persistAt == start.addingTimeInterval(1))
        Self.persist(&machine, now: persistAt)
        // The last send counts from the machine's start: the interval ends at t0 + 5.
        guard case .wait(let sendAt) = machine.nextAction(now: persistAt) else {
            Issue.record("expected a wait")
            return
        }
        #expect(sendAt == Self.t0.addingTimeInterval(5))
        guard case .sendNextBatch(let count, let bytes) = machine.nextAction(now: sendAt) else {
            Issue.record("expected a send")
            return
        }
        #expect(count == 100)
        #expect(bytes == 512 * 1024)
    }

    @Test func aCompleteBatchGoesToDiskAndIsSentAtOnce() {
        var machine = Self.machine { $0.batchSize = 2 }
        _ = machine.record(Self.events(2), now: Self.t0)
        #expect(Self.persist(&machine, now: Self.t0).count == 2)
        guard case .sendNextBatch(let count, _) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a send")
            return
        }
        #expect(count == 2)
        #expect(machine.attempt.inFlight)
        // One request at a time.
        _ = machine.record(Self.events(2, offset: 2), now: Self.t0)
        Self.persist(&machine, now: Self.t0)
        guard case .wait = machine.nextAction(now: Self.t0) else {
            Issue.record("a second request started while one is in flight")
            return
        }
    }

    // MARK: - The disk

    @Test func aFailedDiskWriteKeepsTheEventsRetriesAfterASecondAndFailsWaitingFlushes() throws {
        var machine = Self.machine { $0.maximumBufferedEvents = 4 }
        let events = Self.events(3)
        _ = machine.record(events, now: Self.t0)
        let id = try #require(Self.waitingFlush(&machine, now: Self.t0))
        guard case .persist(let taken) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a disk write")
            return
        }
        let error = "writing the spool failed: No space left on device"
        let actions = machine.persistFailed(taken, error: error, last: false, now: Self.t0)
        #expect(actions.resumeFlushes == [.init(id: id, flushed: false)])
        #expect(actions.log == ["\(error); keeping events in memory and trying again"])
        #expect(machine.counters.buffered == 3)
        #expect(machine.counters.queued == 0)
        #expect(machine.counters.dropped == 0)

        // Not before a second has passed, even with a flush waiting.
        let later = Self.t0.addingTimeInterval(0.5)
        _ = try #require(Self.waitingFlush(&machine, now: later))
        guard case .wait(let retryAt) = machine.nextAction(now: later) else {
            Issue.record("expected a wait")
            return
        }
        #expect(retryAt == Self.t0.addingTimeInterval(1))
        // Events recorded meanwhile go after the kept ones; past the capacity the oldest go.
        _ = machine.record(Self.events(2, offset: 3), now: later)
        #expect(machine.counters.dropped == 1)
        guard case .persist(let retried) = machine.nextAction(now: retryAt) else {
            Issue.record("expected the write to be retried")
            return
        }
        #expect(retried.map(\.seq) == [2, 3, 4, 5])
        // Logged once while the disk keeps failing.
        #expect(machine.persistFailed(retried, error: error, last: false, now: retryAt).log.isEmpty)
        #expect(machine.failedAttempts == 2)
        guard case .persist(let third) = machine.nextAction(now: retryAt.addingTimeInterval(1)) else {
            Issue.record("expected the write to be retried")
            return
        }
        _ = machine.persisted(dropped: 0)
        #expect(!machine.diskFailing)
        #expect(third.count == 4)
        #expect(machine.counters.queued == 4)
    }

    @Test func eventsTheQueueCapDroppedAreCountedAndLogged() {
        var machine = Self.machine { $0.maximumQueueBytes = 2_000 }
        _ = machine.record(Self.events(4), now: Self.t0)
        _ = machine.flush(now: Self.t0)
        guard case .persist = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a disk write")
            return
        }
        let actions = machine.persisted(dropped: 3)
        #expect(actions.log == ["the queue is over its 2000-byte cap: 3 oldest events dropped"])
        #expect(machine.counters.dropped == 3)
        #expect(machine.counters.queued == 1)
    }

    @Test func eventsThatCannotBeReadBackAreDropped() throws {
        var machine = Self.machine()
        _ = machine.record(Self.events(3), now: Self.t0)
        let id = try #require(Self.waitingFlush(&machine, now: Self.t0))
        Self.persist(&machine, now: Self.t0)
        guard case .sendNextBatch = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a send")
            return
        }
        let actions = machine.batchUnavailable()
        #expect(actions.log == ["3 queued events could not be read back from disk"])
        #expect(actions.resumeFlushes.map(\.id) == [id])
        #expect(machine.counters.dropped == 3)
        #expect(machine.counters.queued == 0)
        #expect(!machine.attempt.inFlight)
    }

    // MARK: - The backlog

    @Test func theBacklogFoundOnDiskIsCountedBeforeFlushTargetsAreSet() throws {
        var machine = Machine(settings: Self.settings(), now: Self.t0)
        // Before the count, even an empty transport's flush waits.
        let id = try #require(Self.waitingFlush(&machine, now: Self.t0))
        let recorded = Self.events(2, offset: 3)
        _ = machine.record(recorded, now: Self.t0)
        let scanned = machine.backlogScanned(3)
        #expect(scanned.log == ["3 events left by an earlier transport are queued for sending"])
        #expect(scanned.resumeFlushes.isEmpty)
        #expect(machine.flushWaiters.first?.target == 5)
        #expect(machine.counters.queued == 3)
        #expect(machine.counters.recorded == 2)

        Self.persist(&machine, now: Self.t0)
        let backlog = Self.batch(Self.events(3))
        let (_, first) = try #require(Self.exchange(&machine, backlog, answer: Self.accepted(backlog), now: Self.t0))
        #expect(first.resumeFlushes.isEmpty)
        let rest = Self.batch(recorded)
        let (_, second) = try #require(Self.exchange(&machine, rest, answer: Self.accepted(rest), now: Self.t0))
        #expect(second.resumeFlushes == [.init(id: id, flushed: true)])
    }

    @Test func aFlushBeforeAnEmptyBacklogIsCountedReturnsTrueOnceItIs() throws {
        var machine = Machine(settings: Self.settings(), now: Self.t0)
        let id = try #require(Self.waitingFlush(&machine, now: Self.t0))
        let actions = machine.backlogScanned(0)
        #expect(actions.log.isEmpty)
        #expect(actions.resumeFlushes == [.init(id: id, flushed: true)])
        #expect(!machine.flushKick)
    }

    // MARK: - Shutdown

    @Test func shutdownPersistsWhatIsLeftAndResumesTheStopWaiters() throws {
        var machine = Self.machine()
        _ = machine.record(Self.events(2), now: Self.t0)
        // The worker goes to sleep: the disk write is not due yet.
        guard case .wait = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a wait")
            return
        }
        machine.close()
        #expect(machine.record(Self.events(1, offset: 2), now: Self.t0) == .shutDown)
        guard case .waiting(let id, let actions) = machine.stop() else {
            Issue.record("expected the stop to wait")
            return
        }
        #expect(actions.wakeWorker)
        // Closing writes the buffer without waiting for the delay; then the worker stops.
        #expect(Self.persist(&machine, now: Self.t0).count == 2)
        guard case .stop(let leftovers) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected the worker to stop")
            return
        }
        #expect(leftovers.isEmpty)
        #expect(machine.stopped().resumeStops == [id])
        #expect(machine.counters.queued == 2)
        #expect(machine.counters.recorded == 2)
        #expect(machine.flush(now: Self.t0) == .done(false))
        #expect(machine.stop() == .done)
    }

    @Test func shutdownWaitsForTheRequestInFlight() throws {
        let start = Self.queued(2)
        var machine = start.machine
        let id = try #require(start.flush)
        let batch = start.batch
        let plan = try #require(Self.post(&machine, batch, answer: Self.accepted(batch), now: Self.t0))
        machine.close()
        guard case .waiting(let stopID, _) = machine.stop() else {
            Issue.record("expected the stop to wait")
            return
        }
        guard case .wait = machine.nextAction(now: Self.t0) else {
            Issue.record("the worker stopped with a request in flight")
            return
        }
        #expect(plan.verdict == .settle(sent: 2, rejected: 0))
        #expect(machine.answerApplied(waited: nil, now: Self.t0).resumeFlushes == [.init(id: id, flushed: true)])
        guard case .stop = machine.nextAction(now: Self.t0) else {
            Issue.record("expected the worker to stop")
            return
        }
        #expect(machine.stopped().resumeStops == [stopID])
    }

    @Test func atStopEventsTheFailingDiskNeverTookAreLostAndCounted() throws {
        var machine = Self.machine()
        _ = machine.record(Self.events(2), now: Self.t0)
        machine.close()
        _ = try #require(Self.waitingFlush(&machine, now: Self.t0))
        guard case .persist(let events) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected a disk write")
            return
        }
        #expect(machine.persistFailed(events, error: "e", last: false, now: Self.t0).resumeFlushes.count == 1)
        guard case .waiting(let id, _) = machine.stop() else {
            Issue.record("expected the stop to wait")
            return
        }
        // The retry is a second away: the worker stops now and tries one last write.
        guard case .stop(let leftovers) = machine.nextAction(now: Self.t0) else {
            Issue.record("expected the worker to stop")
            return
        }
        #expect(leftovers.map(\.seq) == [1, 2])
        let lost = machine.persistFailed(leftovers, error: "e", last: true, now: Self.t0)
        #expect(lost.log == ["e; 2 events that were never written to disk are lost"])
        #expect(machine.counters.dropped == 2)
        #expect(machine.counters.buffered == 0)
        #expect(machine.stopped().resumeStops == [id])
    }

    @Test func invalidEventsAreCountedAsRejected() {
        var machine = Self.machine()
        machine.rejectInvalid(2)
        #expect(machine.counters.rejected == 2)
        #expect(machine.counters.recorded == 0)
    }
}
