import Foundation
import Testing

@testable import OnboardMetricsSDK

/// `flush()`, `record(_:)` and `shutdown()` as the app sees them.
@Suite struct HTTPTransportFlushTests: HTTPTransportTestCase {
    // MARK: - flush, record, shutdown

    @Test func flushReportsWhetherEverythingRecordedWasSettled() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(503, code: "unavailable", message: "down") }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        #expect(await transport.flush())
        #expect(poster.requests.isEmpty)
        let events = Self.events(3)
        for event in events { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(transport.counters.queued == 3)
        #expect(transport.counters.buffered == 0)
        poster.answer { batch, _ in Self.accept(batch) }
        #expect(await transport.flush())
        #expect(transport.counters.queued == 0)
        #expect(poster.requests.count == 2)
        await transport.shutdown()
    }

    @Test func recordNeverWaitsForAStalledDiskAndDropsTheOldestWhenTheBufferIsFull() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The worker stalls at its first disk write until released: the disk has stalled.
        let gate = DispatchSemaphore(value: 0)
        let stalled = LockedBox(true)
        let poster = ScriptedPoster()
        let observer = Observer()
        let transport = try HTTPTransport(
            configuration: Self.configuration(
                folder: path, observer: observer,
                edit: {
                    $0.maximumBufferedEvents = 100
                    $0.batchSize = 10
                }),
            poster: poster, random: { 0.5 }, retryDelay: { observer.delay($0) },
            beforeDiskWrite: { if stalled.withLock({ $0 }) { gate.wait() } })
        let events = Self.events(5_000)
        // Recorded on a thread of its own: were record() to wait for the disk, the test fails at the
        // deadline below instead of hanging.
        let done = DispatchSemaphore(value: 0)
        let longest = LockedBox<TimeInterval>(0)
        let failure = LockedBox<String?>(nil)
        Thread {
            for event in events {
                let started = Date()
                do { try transport.record(event) } catch { failure.withLock { $0 = "\(error)" } }
                let took = Date().timeIntervalSince(started)
                longest.withLock { $0 = max($0, took) }
            }
            done.signal()
        }.start()
        let finished = done.wait(timeout: .now() + 60) == .success
        #expect(finished, "record() waited for the stalled disk")
        #expect(failure.withLock { $0 } == nil)
        #expect(longest.withLock { $0 } < 1, "the longest record() call took \(longest.withLock { $0 }) s")
        let stalledCounters = transport.counters
        #expect(stalledCounters.recorded == 5_000)
        #expect(stalledCounters.buffered == 100)
        // What the worker took before it stalled is neither buffered nor dropped.
        let taken = 5_000 - stalledCounters.buffered - stalledCounters.dropped
        #expect(stalledCounters.dropped >= 4_000)
        #expect(taken >= 1 && taken <= 100)

        stalled.withLock { $0 = false }
        gate.signal()
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.sent + counters.dropped == 5_000)
        #expect(counters.sent == taken + 100)
        // The newest 100 survive, after what the worker held when the disk stalled.
        let sent = poster.requests.flatMap(\.events).map(\.seq)
        #expect(sent.suffix(100) == Array(4_901...5_000))
    }

    @Test func recordValidatesAndRefusesAfterShutdown() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let transport = try Self.transport(folder: path, poster: ScriptedPoster(), observer: Observer())
        var invalid = Self.events(1)[0]
        invalid.userID = ""
        #expect(throws: EventValidationError.self) { try transport.record(invalid) }
        #expect(transport.counters.rejected == 1)
        #expect(transport.counters.recorded == 0)
        let counters = await transport.shutdown()
        #expect(counters.rejected == 1)
        #expect(throws: RecorderError.self) { try transport.record(Self.events(1)[0]) }
        // A second shutdown is harmless.
        #expect(await transport.shutdown() == counters)
    }
}
