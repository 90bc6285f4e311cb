import Foundation
import Testing

@testable import OnboardMetricsFormats
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Property test of the one event format: random events, written the way the SDK writes them
/// (the transport's batch body, the outbox on disk, `Codable`), read back by the collector's batch
/// parser, the JSONL parser ingest runs, the outbox and `Codable` — every reader gives back the
/// identical event.
@Suite struct EventFormatRoundTripTests {
    /// Characters that stress the writer and the reader: escapes, controls, every UTF-8 length,
    /// a combining mark, an astral emoji (a surrogate pair in JSON's \u form).
    static let alphabet: [Character] = Array(
        "abcXYZ019 -_./:\"\\\u{01}\u{1F}\u{7F}\n\t\réüß中文\u{0301}😀🎉\u{FEFF}")

    struct Generator {
        var random: Xoshiro256StarStar

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func bool() -> Bool { Bool.random(using: &random) }

        mutating func string(maximum: Int = 12) -> String {
            let alphabet = EventFormatRoundTripTests.alphabet
            var text = ""
            for _ in 0..<int(0...maximum) { text.append(alphabet[int(0...(alphabet.count - 1))]) }
            return text
        }

        mutating func name() -> String {
            var text = string()
            if text.isEmpty { text = "n" }
            return text
        }

        mutating func number() -> Double {
            switch int(0...3) {
            case 0: return Double(int(-1_000_000...1_000_000))
            case 1: return Double(int(-1_000_000_000...1_000_000_000)) / 1000
            case 2: return Double.random(in: -1e12...1e12, using: &random)
            default: return Double(int(0...1) == 0 ? Int64(1) << 52 : -(Int64(1) << 40))
            }
        }

        mutating func value(depth: Int) -> JSONValue {
            switch int(0...(depth < 3 ? 6 : 4)) {
            case 0: return .null
            case 1: return .bool(bool())
            case 2: return .number(number())
            case 3, 4: return .string(string())
            case 5: return .array((0..<int(0...3)).map { _ in value(depth: depth + 1) })
            default: return .object(object(depth: depth + 1))
            }
        }

        mutating func object(depth: Int) -> [String: JSONValue] {
            var object: [String: JSONValue] = [:]
            for _ in 0..<int(0...4) { object[string()] = value(depth: depth) }
            return object
        }

        mutating func date() -> Date {
            // Milliseconds: the format's precision.
            Date(timeIntervalSince1970: Double(int(946_684_800_000...4_102_444_799_999)) / 1000)
        }

        mutating func uuid() -> UUID {
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }

        mutating func event() -> Event {
            let kinds = EventKind.allCases
            let kind = kinds[kinds.index(kinds.startIndex, offsetBy: int(0...(kinds.count - 1)))]
            return Event(
                eventID: uuid(), sessionID: uuid(), userID: name(), seq: int(0...Int(Int32.max)), kind: kind,
                flowID: bool() ? name() : nil, flowVersion: bool() ? int(0...Int(Int32.max)) : nil,
                stepID: kind.isStepEvent || bool() ? name() : nil, name: kind == .custom || bool() ? name() : nil,
                occurredAt: date(), sentAt: bool() ? date() : nil, receivedAt: bool() ? date() : nil,
                properties: object(depth: 0))
        }
    }

    static func events(seed: UInt64, count: Int) -> [Event] {
        var generator = Generator(random: Xoshiro256StarStar(seed: seed))
        return (0..<count).map { _ in generator.event() }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theCollectorReadsTheTransportsBatchBodyBackIdentically(seed: UInt64) throws {
        let events = Self.events(seed: seed, count: 300)
        var batch = TransportBatch()
        for event in events {
            var line: [UInt8] = []
            event.appendJSONLine(to: &line)
            batch.append(event, line: line)
        }
        let body = [UInt8](batch.body(sentAt: Date(timeIntervalSince1970: 1_800_000_000)))
        let parsed = try body.withUnsafeBufferPointer { try EventBatch.parse($0, maximumEvents: 1_000) }
        #expect(parsed.sentAt == Date(timeIntervalSince1970: 1_800_000_000))
        let read = parsed.items.compactMap { item -> Event? in
            if case .event(let event) = item { return event }
            return nil
        }
        #expect(read.count == events.count)
        for (written, back) in zip(events, read) { #expect(back == written, "\(written.jsonLine)") }
    }

    @Test(arguments: [4, 5, 6] as [UInt64])
    func ingestsJSONLParserAndCodableReadTheSDKsLinesBackIdentically(seed: UInt64) throws {
        let parser = JSONEventParser()
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        for event in Self.events(seed: seed, count: 300) {
            let line = Array(event.jsonLine.utf8)
            #expect(try line.withUnsafeBufferPointer { try parser.parse($0) } == event, "\(event.jsonLine)")
            #expect(try Event.decode(jsonLine: event.jsonLine) == event)
            // Codable is the same format: its output is a line the parser reads, and back.
            let encoded = try encoder.encode(event)
            #expect(try decoder.decode(Event.self, from: encoded) == event)
            #expect(try [UInt8](encoded).withUnsafeBufferPointer { try parser.parse($0) } == event)
        }
    }

    @Test func theOutboxOnDiskGivesBackWhatWasAppended() throws {
        let folder = NSTemporaryDirectory() + "format-outbox-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let events = Self.events(seed: 7, count: 200)
        do {
            let outbox = TransportOutbox(spool: try Spool(directory: folder, capacityBytes: 1 << 26, log: { _ in }))
            #expect(try outbox.append(events) == 0)
            outbox.close()
        }
        // A new outbox on the folder reads the records from disk, as after an app restart.
        let outbox = TransportOutbox(spool: try Spool(directory: folder, capacityBytes: 1 << 26, log: { _ in }))
        defer { outbox.close() }
        #expect(outbox.scanBacklog() == events.count)
        var read: [Event] = []
        while let batch = outbox.nextBatch(maximumCount: 64, maximumBytes: 1 << 20) {
            read += batch.events
            outbox.settle(batch)
        }
        #expect(read == events)
    }

    @Test func unknownKeysAreRefusedByEveryReader() throws {
        let line =
            #"{"event_id":"0190f5c2-7b1a-7cc3-8f00-000000000001","session_id":"0190f5c2-7b1a-7cc3-8f00-000000000002","user_id":"u","seq":1,"kind":"session_started","occurred_at":"2026-01-01T00:00:00.000Z","step":"welcome"}"#
        let direct = #expect(throws: EventValidationError.self) { try Event.decode(jsonLine: line) }
        #expect(direct?.field == "step")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Event.self, from: Data(line.utf8)) }
        let body = Array(#"{"sent_at":null,"events":[\#(line)]}"#.utf8)
        let batch = try body.withUnsafeBufferPointer { try EventBatch.parse($0, maximumEvents: 10) }
        guard case .invalid(_, let error)? = batch.items.first else {
            Issue.record("the collector accepted an unknown key")
            return
        }
        #expect(error.field == "step")
    }
}
