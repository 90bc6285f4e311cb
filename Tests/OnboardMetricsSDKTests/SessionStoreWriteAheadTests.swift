import Foundation
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK

/// A move's events are saved with the session's position before they reach the sink, so a
/// process killed before its transport wrote them to the outbox loses nothing: the next launch
/// records them again (same ids; the server keeps an id once).
@Suite struct SessionStoreWriteAheadTests {
    /// A sink that refuses moves while `refusing` is set, and calls `observe` with each move.
    final class GatedSink: EventSink, Sendable {
        let refusing = LockedBox(false)
        let observe: @Sendable ([Event]) -> Void
        let kept = RecordingSink()

        init(observe: @escaping @Sendable ([Event]) -> Void = { _ in }) { self.observe = observe }

        func record(_ event: Event) throws { try record(contentsOf: [event]) }

        func record(contentsOf events: [Event]) throws {
            if refusing.withLock({ $0 }) { throw RecorderError(.shutDown, "refused by the test") }
            observe(events)
            try kept.record(contentsOf: events)
        }
    }

    static func launch(_ folder: String, sink: GatedSink, clock: ManualClock) throws -> SessionStore {
        var configuration = SessionStore.Configuration()
        configuration.clock = clock.closure
        return try SessionStore(
            directory: folder, flows: FlowCatalog([SessionStoreTests.tour()]), sink: sink,
            configuration: configuration)
    }

    @Test func theNextLaunchRecordsAgainTheEventsOfTheLastMovesOfAKilledProcess() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let lost = RecordingSink()
        do {
            let store = try SessionStoreTests.launch(folder, sink: lost, clock: clock)
            let session = try store.start(flow: "welcome-tour")
            clock.advance(by: 100)
            try session.next()
            clock.advance(by: 5)
            try session.skip()
        }
        // Killed: its transport never wrote `lost`'s events. Relaunched ten minutes later.
        clock.advance(by: 600)
        let sink = RecordingSink()
        let store = try SessionStoreTests.launch(folder, sink: sink, clock: clock)
        let session = try store.start(flow: "welcome-tour")
        // The last 30 seconds of moves (the first move was 100 s before them): same events, same ids.
        let again = lost.events.suffix(4)
        #expect(
            again.map { "\($0.kind.rawValue) \($0.stepID ?? "")" } == [
                "step_completed welcome", "step_viewed notifications", "step_skipped notifications",
                "step_viewed share",
            ])
        #expect(sink.events.map(\.eventID) == again.map(\.eventID))
        #expect(sink.events.map(\.seq) == [3, 4, 5, 6])
        try session.next()
        #expect(sink.events.last?.seq == 8)
        // A launch in the same process does not send them again; the server keeps an id once.
        _ = try store.start(flow: "welcome-tour")
        #expect(sink.resent == 0 && sink.events.count == 6)
    }

    @Test func aRefusedMoveLeavesTheFileAsItWasAndAFirstMoveLeavesNone() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let sink = GatedSink()
        let store = try Self.launch(folder, sink: sink, clock: clock)
        let path = store.sessionPath("welcome-tour")

        sink.refusing.withLock { $0 = true }
        #expect(throws: RecorderError.self) { try store.start(flow: "welcome-tour") }
        #expect(!FileManager.default.fileExists(atPath: path))

        sink.refusing.withLock { $0 = false }
        let session = try store.start(flow: "welcome-tour")
        let before = try #require(FileManager.default.contents(atPath: path))
        sink.refusing.withLock { $0 = true }
        clock.advance(by: 3)
        #expect(throws: RecorderError.self) { try session.next() }
        #expect(FileManager.default.contents(atPath: path) == before)
        #expect(session.currentStep?.id == "welcome")
        let record = try SessionRecord.decode(before)
        #expect(record.recent?.map(\.eventID) == sink.kept.events.map(\.eventID))
    }

    @Test func theLinkIsRecordedBeforeTheIdentityIsSaved() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let savedAtLink = LockedBox<String?>(nil)
        let sink = GatedSink { events in
            guard events.contains(where: { $0.name == Identity.linkEventName }) else { return }
            let data = FileManager.default.contents(atPath: folder + "/identity.json") ?? Data()
            savedAtLink.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }
        let clock = ManualClock()
        let store = try Self.launch(folder, sink: sink, clock: clock)
        _ = try store.start(flow: "welcome-tour")
        try store.identify(user: "member-7")
        // When the link reached the sink the file still said anonymous; afterwards it is saved.
        let atLink = try #require(savedAtLink.withLock { $0 })
        #expect(atLink.contains(store.anonymousID) && !atLink.contains("member-7"))
        let after = String(
            decoding: FileManager.default.contents(atPath: folder + "/identity.json") ?? Data(), as: UTF8.self)
        #expect(after.contains("member-7"))
    }
}
