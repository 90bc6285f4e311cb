import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// The CSV reader on hostile input: linear time, resynchronisation after a stray quote, UTF-8
/// checked (issue 14, defects 4 and 7).
@Suite struct CSVReaderHardeningTests {
    /// Feeds `lines` and returns (line, outcome) of every record.
    static func read(_ lines: [String], maximumRecordLines: Int = 100) -> [(Int, CSVReader.Outcome)] {
        var reader = CSVReader()
        reader.maximumRecordLines = maximumRecordLines
        var records: [(Int, CSVReader.Outcome)] = []
        let body: (CSVReader.Record) -> Bool = {
            records.append(($0.line, $0.outcome))
            return true
        }
        for (index, line) in lines.enumerated() {
            var bytes = Array(line.utf8)
            _ = bytes.withUnsafeMutableBufferPointer { reader.feed(UnsafeBufferPointer($0), number: index + 1, body) }
        }
        _ = reader.finish(body)
        return records
    }

    @Test func aStrayQuoteCostsOneLineAndTheRowsAfterItAreRead() {
        var lines = ["a,b", #"1,"stray"#]
        for row in 0..<250 { lines.append("\(row),x") }
        let records = Self.read(lines)
        #expect(records.count == 252)
        guard case .malformed(let reason) = records[1].1 else {
            Issue.record("the stray quote's line must be malformed")
            return
        }
        #expect(records[1].0 == 2)
        #expect(reason.contains("not closed"))
        #expect(records.dropFirst(2).allSatisfy { if case .record = $0.1 { true } else { false } })
        #expect(records.last?.0 == 252)
        #expect(records.last?.1 == .record(["249", "x"]))
    }

    @Test func aStrayQuoteNearTheEndOfTheFileIsResynchronisedToo() {
        let records = Self.read(["a,b", #"1,"open"#, "2,x", "3,y"])
        #expect(records.map(\.0) == [1, 2, 3, 4])
        #expect(records[2].1 == .record(["2", "x"]))
        #expect(records[3].1 == .record(["3", "y"]))
    }

    @Test func twentyThousandRowsAfterAStrayQuoteTakeLinearTime() {
        var lines = [#"1,"stray"#]
        for row in 0..<20_000 { lines.append("\(row),some text,2026-01-31 09:15:02") }
        let started = Date()
        let records = Self.read(lines)
        let seconds = Date().timeIntervalSince(started)
        #expect(records.count == 20_001)
        // Quadratic re-splitting took about a minute on 20,000 rows; linear reading well under 5 s
        // even in a debug build on a loaded machine.
        #expect(seconds < 5, "took \(seconds) s")
    }

    @Test func multiLineFieldsStillWork() {
        let records = Self.read([#"1,"first"#, "second", #"third",x"#, "2,y"])
        #expect(records.map(\.0) == [1, 4])
        #expect(records[0].1 == .record(["1", "first\nsecond\nthird", "x"]))
    }

    @Test func invalidUTF8IsMalformedWithItsField() {
        var bytes: [UInt8] = Array("ok,".utf8) + [0xC3, 0x28] + Array(",z".utf8)
        let outcome = bytes.withUnsafeMutableBufferPointer { CSVReader.split(UnsafeBufferPointer($0)) }
        #expect(outcome == .malformed("field 2 is not valid UTF-8"))
        var quoted: [UInt8] = Array("\"".utf8) + [0xED, 0xA0, 0x80] + Array("\",z".utf8)  // a UTF-8 surrogate
        let second = quoted.withUnsafeMutableBufferPointer { CSVReader.split(UnsafeBufferPointer($0)) }
        #expect(second == .malformed("field 1 is not valid UTF-8"))
    }
}
