import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics
@testable import OnboardMetricsStore

/// Every kind of bad input the hardening probe used (issue 14), and the obvious others: each is
/// rejected with a clear error naming its file and line (and field, where there is one), and the
/// good rows around it land exactly once — also when the same files are ingested again.
@Suite struct BadInputCorpusTests {
    /// One bad line: its bytes and a piece of the reason it must be rejected with.
    struct Bad {
        var bytes: [UInt8]
        var reason: String

        init(_ text: String, _ reason: String) {
            bytes = Array(text.utf8)
            self.reason = reason
        }

        init(bytes: [UInt8], _ reason: String) {
            self.bytes = bytes
            self.reason = reason
        }
    }

    /// A JSONL file of `good` events with the bad lines between them, CRLF line ends on some
    /// lines and a byte order mark on the first; returns the line numbers of the bad ones.
    static func jsonlFile(_ path: String, good: [Event], bad: [Bad]) throws -> [Int: String] {
        var data: [UInt8] = [0xEF, 0xBB, 0xBF]
        var expected: [Int: String] = [:]
        var line = 0
        var goodIterator = good.makeIterator()
        var badIterator = bad.makeIterator()
        while true {
            var wrote = false
            for index in 0..<3 {
                guard let event = goodIterator.next() else { break }
                line += 1
                data += Array(event.jsonLine.utf8) + (index == 1 ? [13, 10] : [10])
                wrote = true
            }
            if let next = badIterator.next() {
                line += 1
                data += next.bytes + [10]
                expected[line] = next.reason
                wrote = true
            }
            if !wrote { break }
        }
        try Data(data).write(to: URL(fileURLWithPath: path))
        return expected
    }

    static func line(_ event: Event, _ change: (inout String) -> Void) -> String {
        var text = event.jsonLine
        change(&text)
        return text
    }

    static func event(_ template: Event, _ change: (inout Event) -> Void) -> String {
        var event = template
        event.eventID = UUID()
        change(&event)
        return event.jsonLine
    }

    @Test func badJSONLinesAreRejectedWithTheirPlaceAndGoodOnesLandOnce() async throws {
        let configuration = try await TestDatabase.migrated("bad_input_jsonl")
        let folder = try TestDatabase.temporaryFolder("bad-input")
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = SampleEvents.make(sessions: 10, perSession: 6, seed: 21, start: Date().addingTimeInterval(-3_600))
        let template = good[1]
        let id = template.eventID.uuidString.lowercased()
        var random = SplitMix64(seed: 5)
        var ids = UUIDv7Generator()
        let farID = ids.next(milliseconds: 5_000_000_000_000, using: &random).uuidString.lowercased()
        let userField = #""user_id":"\#(template.userID)""#
        let bad: [Bad] = [
            Bad(String(template.jsonLine.prefix(40)), "invalid JSON"),  // truncated
            Bad(
                bytes: Array(template.jsonLine.utf8.prefix(30)) + [0] + Array(template.jsonLine.utf8.dropFirst(30)),
                "NUL"),
            Bad(
                Self.line(template) { $0 = $0.replacingOccurrences(of: userField, with: #""user_id":"a\ud800b""#) },
                "surrogate"),
            Bad(
                Self.line(template) {
                    $0 = $0.replacingOccurrences(of: #""seq":1"#, with: #""seq":99999999999999999999999"#)
                }, "out of range"),
            Bad(Self.line(template) { $0 = $0.replacingOccurrences(of: #""seq":1"#, with: #""seq":1e400"#) }, "seq"),
            Bad(
                Self.line(template) {
                    $0 = $0.replacingOccurrences(
                        of: #""properties":{"#,
                        with: #""properties":{"deep":"# + String(repeating: "[", count: 100)
                            + String(repeating: "]", count: 100) + ",")
                }, "nested"),
            Bad(
                bytes: Array(
                    Self.line(template) { $0 = $0.replacingOccurrences(of: userField, with: #""user_id":"u\#u{1}""#) }
                        .utf8
                )
                .map { $0 == 1 ? 0xFF : $0 }, "user_id: invalid JSON"),
            // A byte order mark in the middle of the file.
            Bad(bytes: [0xEF, 0xBB, 0xBF] + Array(Self.event(template) { _ in }.utf8), "invalid JSON"),
            Bad(Self.line(template) { $0 = $0.replacingOccurrences(of: id, with: farID) }, "event_id"),
            Bad(Self.event(template) { $0.receivedAt = Date(timeIntervalSince1970: -62_135_596_800) }, "received_at"),
            Bad(Self.event(template) { $0.receivedAt = Date(timeIntervalSince1970: 253_402_300_799) }, "received_at"),
            Bad(
                Self.line(template) {
                    $0 = $0.replacingOccurrences(of: #""seq":1"#, with: #""seq":1,"skipable":true"#)
                }, "skipable"),
            Bad("[1,2,3]", "invalid JSON"),
            Bad(template.jsonLine + " {}", "text after"),
            Bad("{}", "event_id"),
        ]
        let path = folder.appendingPathComponent("corpus.jsonl").path
        let expected = try Self.jsonlFile(path, good: good, bad: bad)
        for _ in 0..<2 {
            let rejections = LockedBox<[EventIngester.Rejection]>([])
            let summary = try await EventIngester().ingest([path], into: configuration) { _ in
            } rejected: { rejection in
                rejections.withLock { $0.append(rejection) }
            }
            #expect(summary.rejected == bad.count)
            let byLine = Dictionary(
                rejections.withLock({ $0 }).map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(Set(byLine.keys) == Set(expected.keys))
            for (line, reason) in expected {
                #expect(byLine[line]?.file == path)
                #expect(
                    byLine[line]?.reason.contains(reason) == true, "line \(line): \(byLine[line]?.reason ?? "none")")
            }
        }
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == good.count)
        #expect(stored.distinct == good.count)
    }

    @Test func badCSVRecordsAreRejectedWithTheirLineAndTheRowsAfterThemLand() async throws {
        let configuration = try await TestDatabase.migrated("bad_input_csv")
        let folder = try TestDatabase.temporaryFolder("bad-input-csv")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rows: [[UInt8]] = [Array("user,session,event,time,note".utf8)]
        let now = Date().addingTimeInterval(-600)
        func row(_ index: Int) -> [UInt8] {
            Array(
                "u\(index),s\(index % 7),step_viewed,\(Timestamp.string(now.addingTimeInterval(Double(index)))),n\(index)"
                    .utf8)
        }
        var expected: [Int: String] = [:]
        var goodRows = 0
        for index in 0..<60 {
            switch index {
            case 10:
                rows.append(Array(#"u1,s1,step_viewed,2026-01-01 00:00:00,"unclosed note"#.utf8))
                expected[rows.count] = "quoted field"
            case 20:
                rows.append(Array("u\u{1},s1,step_viewed,\(Timestamp.string(now)),x".utf8).map { $0 == 1 ? 0xFE : $0 })
                expected[rows.count] = "UTF-8"
            case 30:
                rows.append(Array("u1,s1,step_viewed".utf8))
                expected[rows.count] = "fields"
            case 40:
                rows.append(Array("u1,s1,step_viewed,yesterday,x".utf8))
                expected[rows.count] = "occurred_at"
            default:
                var bytes = row(index)
                if index % 5 == 0 { bytes.append(13) }  // CRLF
                rows.append(bytes)
                goodRows += 1
            }
        }
        // A stray quote on the last line: rejected at the end of the file.
        rows.append(Array(#"u9,s9,step_viewed,2026-01-01 00:00:00,"open"#.utf8))
        expected[rows.count] = "quoted field"
        let path = folder.appendingPathComponent("corpus.csv").path
        try Data(rows.joined(separator: [10]) + [10]).write(to: URL(fileURLWithPath: path))
        var options = IngestOptions()
        options.mapping = try ColumnMapping(specifications: [
            "user_id=user", "session_id=session", "event=event", "occurred_at=time", "step=note",
        ])
        for _ in 0..<2 {
            let rejections = LockedBox<[EventIngester.Rejection]>([])
            let summary = try await EventIngester(options: options).ingest([path], into: configuration) { _ in
            } rejected: { rejection in
                rejections.withLock { $0.append(rejection) }
            }
            #expect(summary.rejected == expected.count, "\(rejections.withLock({ $0 }))")
            for (line, reason) in expected {
                let found = rejections.withLock({ $0 }).first { $0.line == line }
                #expect(found?.reason.contains(reason) == true, "line \(line): \(found?.reason ?? "not rejected")")
            }
        }
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == goodRows)
        #expect(stored.distinct == goodRows)
    }

    @Test func filesThatCannotBeReadAreClearErrors() async throws {
        let configuration = try await TestDatabase.migrated("bad_input_files")
        let folder = try TestDatabase.temporaryFolder("bad-input-files")
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.jsonl").path
        try Data().write(to: URL(fileURLWithPath: empty))
        let summary = try await EventIngester().ingest([empty], into: configuration)
        #expect(summary.linesRead == 0)
        #expect(summary.inserted == 0)
        let missing = folder.appendingPathComponent("missing.jsonl").path
        let dangling = folder.appendingPathComponent("dangling.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: missing)
        for path in [folder.path, missing, dangling] {
            let error = await #expect(throws: IngestError.self) {
                try await EventIngester().ingest([path], into: configuration)
            }
            #expect(error?.message.contains(path) == true, "\(error?.message ?? "")")
        }
    }
}
