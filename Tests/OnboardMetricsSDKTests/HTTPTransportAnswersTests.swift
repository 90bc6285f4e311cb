import Foundation
import Testing

@testable import OnboardMetricsSDK

/// What the transport does with answers that settle, split or drop a batch, and with a refused key.
@Suite struct HTTPTransportAnswersTests: HTTPTransportTestCase {
    // MARK: - Settled, split, dropped

    @Test func rejectedEventsAreDroppedCountedAndLogged() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { batch, _ in Self.accept(batch, rejecting: [1, 3]) }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        let events = Self.events(4)
        for event in events { try transport.record(event) }
        #expect(await transport.flush())
        let counters = transport.counters
        #expect(counters.sent == 2)
        #expect(counters.rejected == 2)
        #expect(counters.queued == 0)
        for index in [1, 3] {
            let id = events[index].eventID.uuidString.lowercased()
            #expect(
                observer.log.contains {
                    $0.contains(id) && $0.contains("index \(index)") && $0.contains("missing user_id: is empty")
                })
        }
        // Nothing is resent: the rejected events left the queue with the accepted ones.
        #expect(await transport.flush())
        #expect(poster.requests.count == 1)
        await transport.shutdown()
    }

    @Test func payloadTooLargeSplitsUntilALoneEventIsDropped() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = Self.events(4)
        let huge = events[1].eventID
        let poster = ScriptedPoster { batch, _ in
            batch.ids.contains(huge) || batch.events.count > 2
                ? Self.failure(413, code: "payload_too_large", message: "at most 1 MiB") : Self.accept(batch)
        }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in events { try transport.record(event) }
        #expect(await transport.flush())
        #expect(
            poster.requests.map(\.ids) == [
                events.map(\.eventID), [events[0], events[1]].map(\.eventID), [events[0].eventID], [huge],
                [events[2], events[3]].map(\.eventID),
            ])
        let counters = await transport.shutdown()
        #expect(counters.sent == 3)
        #expect(counters.rejected == 1)
        #expect(counters.retried == 0)
        #expect(counters.queued == 0)
        #expect(observer.log.contains { $0.contains(huge.uuidString.lowercased()) && $0.contains("too large") })
    }

    @Test func anotherClientErrorDropsTheBatchAsRejected() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(400, code: "malformed", message: "events must be an array") }
        let observer = Observer()
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in Self.events(3) { try transport.record(event) }
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.rejected == 3)
        #expect(counters.sent == 0)
        #expect(counters.queued == 0)
        #expect(observer.log.contains { $0.contains("400 malformed: events must be an array") })
    }

    // MARK: - A refused key

    @Test func aRefusedKeyKeepsTheEventsAndRetriesAtTheMaximumBackoff() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster { _, _ in Self.failure(401, code: "unauthorized", message: "unknown app key") }
        let observer = Observer(waiting: 3600)
        let transport = try Self.transport(folder: path, poster: poster, observer: observer)
        for event in Self.events(4) { try transport.record(event) }
        #expect(await transport.flush() == false)
        #expect(transport.counters.queued == 4)
        #expect(observer.delays == [8])
        #expect(observer.log.contains { $0.contains("refused the app key") && $0.contains("unknown app key") })
        // A flush does not wait out the backoff: it tries again at once.
        #expect(await transport.flush() == false)
        #expect(poster.requests.count == 2)
        poster.answer { batch, _ in Self.accept(batch) }
        #expect(await transport.flush())
        let counters = await transport.shutdown()
        #expect(counters.sent == 4)
        #expect(counters.retried == 2)
        #expect(counters.queued == 0)
    }
}
