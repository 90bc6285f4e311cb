import Foundation
import Testing

@testable import OnboardMetricsSDK

/// Delivery when the app leaves the foreground (issue 32, item 5), through the platform-neutral
/// hook a Linux test can drive: the flush runs inside a background task given back exactly once.
@Suite struct BackgroundDeliveryTests: HTTPTransportTestCase {
    /// Records the assertions asked for and given back; `expire()` plays the platform taking the
    /// time back.
    final class RecordingTasks: BackgroundTaskProvider {
        struct State {
            var begun: [String] = []
            var ended: [Int] = []
            var expiration: (@Sendable () -> Void)?
        }
        let state = LockedBox(State())

        func begin(_ name: String, expiration: @escaping @Sendable () -> Void) -> Int {
            state.withLock {
                $0.begun.append(name)
                $0.expiration = expiration
                return 41 + $0.begun.count
            }
        }

        func end(_ token: Int) { state.withLock { $0.ended.append(token) } }

        func expire() { state.withLock { $0.expiration }?() }
    }

    @Test func goingToTheBackgroundSendsWhatWaitsInsideOneBackgroundTask() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let poster = ScriptedPoster()
        let transport = try Self.transport(folder: path, poster: poster, observer: Observer())
        let tasks = RecordingTasks()
        let delivery = BackgroundDelivery(transport: transport, tasks: tasks)
        // Partial batches wait (the fixture's flush interval is an hour): nothing is sent yet.
        let events = Self.events(3)
        for event in events { try transport.record(event) }
        #expect(poster.requests.isEmpty)

        #expect(await delivery.appDidEnterBackground().value)
        #expect(poster.requests.flatMap(\.ids) == events.map(\.eventID))
        #expect(tasks.state.withLock { $0.begun } == ["onboardmetrics.flush"])
        #expect(tasks.state.withLock { $0.ended } == [42])
        // The platform taking the time back after the end changes nothing.
        tasks.expire()
        #expect(tasks.state.withLock { $0.ended } == [42])
        await transport.shutdown()
    }

    @Test func whenThePlatformTakesTheTimeBackTheTaskIsGivenBackOnceAndTheEventsStayQueued() async throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The collector is unreachable: the flush cannot finish.
        let poster = ScriptedPoster { _, _ in throw URLError(.notConnectedToInternet) }
        let transport = try Self.transport(folder: path, poster: poster, observer: Observer())
        let tasks = RecordingTasks()
        let delivery = BackgroundDelivery(transport: transport, tasks: tasks)
        for event in Self.events(2) { try transport.record(event) }
        let flush = delivery.appDidEnterBackground()
        tasks.expire()
        #expect(tasks.state.withLock { $0.ended } == [42])
        #expect(await flush.value == false)
        #expect(tasks.state.withLock { $0.ended } == [42])  // not given back twice
        #expect(transport.counters.queued == 2)  // on disk, for the next launch
        await transport.shutdown()
    }
}
