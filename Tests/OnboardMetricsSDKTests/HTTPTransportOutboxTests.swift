import Foundation
import Testing

@testable import OnboardMetricsSDK

/// The on-disk queue: what survives a transport, its cap, its folder lock.
@Suite struct HTTPTransportOutboxTests: HTTPTransportTestCase {
    // MARK: - The disk queue

    @Test func eventsLeftAtShutdownAreSentByTheNextTransportOnTheFolder() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let failing = ScriptedPoster { _, _ in Self.failure(503, code: "unavailable", message: "down") }
        let first = try Self.transport(folder: path, poster: failing, observer: Observer())
        let events = Self.events(5)
        for event in events { try first.record(event) }
        let left = await first.shutdown()
        #expect(left.queued == 5)
        #expect(left.sent == 0)
        #expect(!failing.requests.isEmpty)
        #expect(failing.requests.allSatisfy { $0.ids == events.map(\.eventID) })

        let poster = ScriptedPoster()
        let observer = Observer()
        let second = try Self.transport(folder: path, poster: poster, observer: observer)
        #expect(await Self.eventually { second.counters.queued == 5 })
        #expect(await second.flush())
        #expect(poster.requests.flatMap(\.ids) == events.map(\.eventID))
        #expect(poster.requests.flatMap(\.events) == events)
        let counters = await second.shutdown()
        #expect(counters.recorded == 0)
        #expect(counters.sent == 5)
        #expect(counters.queued == 0)
        #expect(observer.log.contains { $0.contains("5 events left by an earlier transport") })
    }

    @Test func aBacklogLeftByAKilledProcessGoesFirst() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // What a killed app leaves: fsynced records in an unsealed segment.
        let backlog = Self.events(3)
        do {
            let spool = try Spool(directory: path, capacityBytes: 1 << 20, log: { _ in })
            try spool.append(backlog)
        }
        let poster = ScriptedPoster()
        let transport = try Self.transport(folder: path, poster: poster, observer: Observer())
        let fresh = Self.events(2, offset: 3)
        for event in fresh { try transport.record(event) }
        #expect(await transport.flush())
        #expect(poster.requests.flatMap(\.ids) == (backlog + fresh).map(\.eventID))
        #expect(await transport.shutdown().sent == 5)
        let left = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".spool") }
        #expect(left.isEmpty)
    }

    @Test func overTheQueueCapTheOldestEventsAreDroppedAndEveryEventIsAccountedFor() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(503, code: "unavailable", message: "down") }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(
            folder: path, poster: poster, observer: observer, edit: { $0.maximumQueueBytes = 2_000 })
        // Each round is one spool record of some 1,100 bytes: the cap holds fewer than two.
        for round in 0..<6 {
            for event in Self.events(4, offset: round * 4) { try transport.record(event) }
            #expect(await transport.flush() == false)
            let counters = transport.counters
            #expect(counters.queued + counters.dropped == (round + 1) * 4)
        }
        #expect(transport.counters.dropped > 0)
        #expect(observer.log.contains { $0.contains("cap") })
        let failed = poster.requests.count
        poster.answer { batch, _ in Self.accept(batch) }
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.queued == 0)
        #expect(counters.sent + counters.dropped == 24)
        // Each survivor is sent once, in order: the newest, and the batch that was being retried
        // (still in memory when its segment was deleted).
        let sent = poster.requests.dropFirst(failed).flatMap(\.events).map(\.seq)
        #expect(sent.count == counters.sent)
        #expect(sent == sent.sorted() && Set(sent).count == sent.count)
        #expect(sent.suffix(8) == Array(17...24))
    }

    @Test func aFolderServesOneTransportAtATime() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try Self.transport(folder: path, poster: ScriptedPoster(), observer: Observer())
        #expect(throws: RecorderError.self) {
            _ = try Self.transport(folder: path, poster: ScriptedPoster(), observer: Observer())
        }
        _ = first
    }
}
