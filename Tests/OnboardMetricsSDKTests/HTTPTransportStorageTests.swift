import Foundation
import Testing

@testable import OnboardMetricsSDK

/// Where the transport keeps its outbox by default (issue 32, item 7): one folder per app and per
/// collector and key, and an earlier version's outbox adopted on update.
@Suite struct HTTPTransportStorageTests {
    @Test func eachAppAndEachTransportGetsAFolderOfItsOwn() throws {
        let base = URL(fileURLWithPath: "/base")
        let endpoint = try #require(URL(string: "https://collector.example.com"))
        let one = HTTPTransport.Configuration.defaultQueueDirectory(
            base: base, app: "com.example.health", endpoint: endpoint, appKey: "om_live_1")
        let other = HTTPTransport.Configuration.defaultQueueDirectory(
            base: base, app: "com.example.health", endpoint: endpoint, appKey: "om_live_2")
        let anotherApp = HTTPTransport.Configuration.defaultQueueDirectory(
            base: base, app: "com.example.boards", endpoint: endpoint, appKey: "om_live_1")
        #expect(one.path.hasPrefix("/base/OnboardMetrics/com.example.health/outbox-"))
        #expect(Set([one, other, anotherApp]).count == 3)
        #expect(!one.path.contains("om_live_1"))  // the key is hashed, never written
        // The same transport finds the same folder on the next launch.
        #expect(
            one
                == HTTPTransport.Configuration.defaultQueueDirectory(
                    base: base, app: "com.example.health", endpoint: endpoint, appKey: "om_live_1"))
        let odd = HTTPTransport.Configuration.defaultQueueDirectory(
            base: base, app: "../My App/ü", endpoint: endpoint, appKey: "k")
        #expect(odd.deletingLastPathComponent().lastPathComponent == ".._My_App__")
    }

    @Test func anEarlierVersionsOutboxIsAdoptedOnce() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let legacy = base.appendingPathComponent("OnboardMetrics/outbox")
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
        try Data("segment".utf8).write(to: legacy.appendingPathComponent("0000000001.seg"))
        let folder = base.appendingPathComponent("OnboardMetrics/app/outbox-1")
        HTTPTransport.Configuration.adoptLegacyOutbox(base: base, into: folder)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("0000000001.seg").path))
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        // With both present, nothing moves.
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
        HTTPTransport.Configuration.adoptLegacyOutbox(base: base, into: folder)
        #expect(FileManager.default.fileExists(atPath: legacy.path))
    }
}
