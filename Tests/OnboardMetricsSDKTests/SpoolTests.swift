import Foundation
import Testing

@testable import OnboardMetricsSDK

@Suite struct SpoolTests {
    static func folder() -> String {
        NSTemporaryDirectory() + "spool-test-\(UUID().uuidString)"
    }

    static func events(_ count: Int, offset: Int = 0) -> [Event] {
        (0..<count).map { index in
            Event(
                eventID: UUID(), sessionID: UUID(), userID: "u", seq: offset + index, kind: .custom,
                name: "e\(offset + index)",
                occurredAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)),
                properties: ["i": .number(Double(offset + index)), "text": "zürich \"quoted\"\nnewline"])
        }
    }

    @Test func appendedRecordsReadBackInOrder() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = try Spool(directory: path, capacityBytes: 1 << 30, log: { _ in })
        let first = Self.events(3)
        let second = Self.events(2, offset: 3)
        try spool.append(first)
        try spool.append(second)
        spool.sealActiveSegment()
        let segments = spool.sealedSegments()
        #expect(segments.count == 1)
        let read = spool.read(segment: segments[0])
        #expect(read.events.map(\.seq) == [0, 1, 2, 3, 4])
        #expect(read.events.map(\.eventID) == (first + second).map(\.eventID))
        #expect(read.events[1].properties == first[1].properties)
        #expect(read.quarantinedBytes == 0)
    }

    @Test func corruptAndTornRecordsAreQuarantinedNotFatal() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var messages: [String] = []
        let collected = { (message: String) in messages.append(message) }
        let spool = try Spool(directory: path, capacityBytes: 1 << 30, log: collected)
        try spool.append(Self.events(2))
        try spool.append(Self.events(2, offset: 2))
        try spool.append(Self.events(2, offset: 4))
        spool.sealActiveSegment()
        let name = try #require(spool.sealedSegments().first)
        var bytes = try #require(FileManager.default.contents(atPath: path + "/" + name)).map { $0 }
        // Flip a byte inside the second record's payload, and cut the last record short (a torn write).
        let recordStarts = bytes.indices.filter { bytes[$0...].starts(with: Array("OMSP".utf8)) }
        #expect(recordStarts.count == 3)
        bytes[recordStarts[1] + 40] ^= 0xFF
        bytes.removeLast(10)
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
        let read = spool.read(segment: name)
        #expect(read.events.map(\.seq) == [0, 1])
        #expect(read.quarantinedBytes == bytes.count - recordStarts[1])
        #expect(messages.count == 1)
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine")
        #expect(quarantined.count == 1)
    }

    @Test func overTheCapTheOldestEventsAreDroppedAndCounted() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = try Spool(directory: path, capacityBytes: 3_000, log: { _ in })
        var dropped = 0
        for round in 0..<10 {
            dropped += try spool.append(Self.events(3, offset: round * 3))
            spool.sealActiveSegment()  // one segment per append, so the oldest can be dropped alone
        }
        #expect(dropped > 0)
        #expect(dropped.isMultiple(of: 3))
        #expect(spool.totalBytes <= 3_000)
        let kept = spool.sealedSegments().flatMap { spool.read(segment: $0).events.map(\.seq) }
        // What is kept is the newest events, and with the dropped ones it accounts for every event.
        #expect(kept.count + dropped == 30)
        #expect(kept == Array((30 - kept.count)..<30))
    }

    /// A server's spool refuses past its cap and keeps everything it took (issue 59).
    @Test func aRefusingSpoolKeepsEveryEventItTookAndStoresNothingPastTheCap() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = try Spool(directory: path, capacityBytes: 3_000, whenFull: .refuse, log: { _ in })
        var taken = 0
        var refusal: RecorderError?
        for round in 0..<10 {
            do {
                #expect(try spool.append(Self.events(3, offset: round * 3)) == 0)
                taken += 3
            } catch let error as RecorderError {
                refusal = error
                break
            }
            spool.sealActiveSegment()
        }
        #expect(refusal?.code == .spoolFull)
        #expect(taken > 0 && taken < 30)
        #expect(spool.totalBytes <= 3_000)
        let kept = spool.sealedSegments().flatMap { spool.read(segment: $0).events.map(\.seq) }
        #expect(kept == Array(0..<taken))
    }

    @Test func aSecondOwnerOfTheFolderIsRefused() throws {
        let path = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try Spool(directory: path, capacityBytes: 1 << 20, log: { _ in })
        let error = #expect(throws: RecorderError.self) {
            try Spool(directory: path, capacityBytes: 1 << 20, log: { _ in })
        }
        #expect(error?.code == .spool)
        _ = first
    }

    /// A spool refused its folder (another owner holds it) closes its lock file once: a second
    /// close, from `deinit`, would close whatever file another thread had been given that number
    /// meanwhile (seen as "Bad file descriptor" in a transport's spool).
    @Test func aSpoolRefusedItsFolderClosesNoOtherFile() throws {
        let held = Self.folder()
        let other = Self.folder()
        defer {
            try? FileManager.default.removeItem(atPath: held)
            try? FileManager.default.removeItem(atPath: other)
        }
        let owner = try Spool(directory: held, capacityBytes: 1 << 20, log: { _ in })
        let writer = try Spool(directory: other, capacityBytes: 1 << 30, log: { _ in })
        let refusals = Thread {
            for _ in 0..<3_000 { _ = try? Spool(directory: held, capacityBytes: 1 << 20, log: { _ in }) }
        }
        refusals.start()
        // Small segments: the writer opens a file every few appends, racing the refusals.
        for round in 0..<300 {
            writer.sealActiveSegment()
            try writer.append(Self.events(1, offset: round))
        }
        while !refusals.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(writer.sealedSegments().count >= 1)
        owner.close()
    }
}
