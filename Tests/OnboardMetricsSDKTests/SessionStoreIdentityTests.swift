import Foundation
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK

/// The store's identity: an anonymous id from the first launch, `identify(user:)` and `reset()`.
@Suite struct SessionStoreIdentityTests {
    static func launch(_ folder: String, sink: RecordingSink, clock: ManualClock) throws -> SessionStore {
        try SessionStoreTests.launch(folder, sink: sink, clock: clock)
    }

    @Test func theAnonymousIDOutlivesTheProcess() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        let first = try Self.launch(folder, sink: sink, clock: clock).anonymousID
        let again = try Self.launch(folder, sink: sink, clock: clock)
        #expect(first.hasPrefix("anon-"))
        #expect(again.anonymousID == first)
        #expect(again.userID == first)
        #expect(again.identifiedUserID == nil)
        let other = try Self.launch(SessionStoreTests.folder(), sink: sink, clock: clock)
        #expect(other.anonymousID != first)
    }

    @Test func identifyLinksTheAnonymousIDAndLaterEventsCarryTheUser() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        let store = try Self.launch(folder, sink: sink, clock: clock)
        let anonymous = store.anonymousID
        let session = try store.start(flow: "welcome-tour")
        try session.next()
        try store.identify(user: "user-42")
        try session.skip()
        try store.identify(user: "user-42")

        let events = sink.events
        #expect(events.map(\.userID) == [anonymous, anonymous, anonymous, anonymous, "user-42", "user-42", "user-42"])
        // Exactly the event the server's PersonLinks reads: custom `$identify`, the known user as
        // user_id, the anonymous id in `$anon_distinct_id`.
        let links = events.filter { $0.name == "$identify" }
        #expect(links.count == 1)
        let link = try #require(links.first)
        #expect(link.kind == .custom)
        #expect(link.userID == "user-42")
        #expect(link.properties["$anon_distinct_id"] == .string(anonymous))
        #expect(link.sessionID == session.sessionID)
        #expect(events.map(\.seq) == Array(1...7))

        // The identity outlives the process, and a resumed session records for the user.
        clock.advance(by: 60)
        let again = try Self.launch(folder, sink: sink, clock: clock)
        #expect(again.identifiedUserID == "user-42")
        #expect(again.anonymousID == anonymous)
        try again.start(flow: "welcome-tour").next()
        #expect(sink.events.last?.userID == "user-42")
        #expect(sink.events.last?.sessionID == session.sessionID)
    }

    @Test func identifyWithoutASessionGoesToTheUsersStream() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let store = try Self.launch(folder, sink: sink, clock: ManualClock())
        let anonymous = store.anonymousID
        try store.identify(user: "user-7")
        let link = try #require(sink.events.first)
        #expect(sink.events.count == 1)
        #expect(link.sessionID == DerivedSessionID.stream(user: "user-7"))
        #expect(link.properties["$anon_distinct_id"] == .string(anonymous))
    }

    @Test func switchingToAnotherUserLinksNothing() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let store = try Self.launch(folder, sink: sink, clock: ManualClock())
        let anonymous = store.anonymousID
        try store.identify(user: "alice")
        try store.identify(user: "bob")
        #expect(sink.events.filter { $0.name == "$identify" }.count == 1)
        #expect(store.userID == "bob")
        #expect(store.anonymousID != anonymous)
    }

    @Test func resetMakesANewAnonymousIdentityAndForgetsTheSessions() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sink = RecordingSink()
        let clock = ManualClock()
        let store = try Self.launch(folder, sink: sink, clock: clock)
        let anonymous = store.anonymousID
        let old = try store.start(flow: "welcome-tour")
        try store.identify(user: "user-42")
        clock.advance(by: 30)
        try store.reset()

        #expect(store.anonymousID != anonymous)
        #expect(store.identifiedUserID == nil)
        #expect(store.userID == store.anonymousID)
        // The previous person's running session is closed where they left it.
        let closing = try #require(sink.events.last)
        #expect(closing.kind == .flowAbandoned)
        #expect(closing.sessionID == old.sessionID)
        #expect(closing.occurredAt == clock.now.addingTimeInterval(-30))
        #expect(store.session(flow: "welcome-tour") == nil)

        let fresh = try store.start(flow: "welcome-tour")
        #expect(fresh.sessionID != old.sessionID)
        #expect(sink.events.last?.userID == store.anonymousID)
        // A relaunch keeps the new identity.
        let again = try Self.launch(folder, sink: sink, clock: clock)
        #expect(again.anonymousID == store.anonymousID)
        #expect(again.identifiedUserID == nil)
    }

    @Test func optingOutResetsTheIdentityAndSendsNothing() throws {
        let folder = SessionStoreTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let transport = RecordingSink()
        let gate = try ConsentGate(directory: folder + "/consent", policy: .holdUntilGranted, sink: transport)
        try gate.setConsent(.granted)
        var configuration = SessionStore.Configuration()
        configuration.clock = ManualClock().closure
        let store = try SessionStore(
            directory: folder, flows: FlowCatalog([SessionStoreTests.tour()]), sink: gate,
            configuration: configuration)
        let anonymous = store.anonymousID
        try store.start(flow: "welcome-tour").next()
        let sent = transport.events.count
        try gate.optOut(forgetting: store)
        #expect(gate.consent == .denied)
        #expect(store.anonymousID != anonymous)
        #expect(store.session(flow: "welcome-tour") == nil)
        #expect(transport.events.count == sent)
    }
}
