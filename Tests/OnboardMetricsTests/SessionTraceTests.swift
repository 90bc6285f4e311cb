import Foundation
import Testing

@testable import OnboardMetricsReader

@Suite struct SessionTraceTests {
    /// SplitMix64, seeded: the rows of each test are the same on every run.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func rows(count: Int, random: inout Random) -> [SessionTrace.Row] {
        let words: [[UInt8]?] = [nil, [], Array("welcome".utf8), Array("données — ✓".utf8), [0, 255, 7]]
        func word() -> [UInt8]? { words[Int(random.next() % UInt64(words.count))] }
        var time = Int64.random(in: -1_000_000_000_000...1_000_000_000_000_000, using: &random)
        return (0..<count).map { index in
            time += Int64.random(in: -5_000_000...50_000_000, using: &random)
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes[6] = 0x70 | (bytes[6] & 0x0F)
            let id = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            let extreme = index % 7 == 3
            return SessionTrace.Row(
                eventID: id, userID: word(), seq: extreme ? Int32.max : Int32(index),
                kind: Array(["session_started", "step_viewed", "custom"][index % 3].utf8), flowID: word(),
                flowVersion: index % 4 == 0 ? nil : (extreme ? Int32.min : Int32(index % 5)), stepID: word(),
                name: word(), occurred: extreme ? Int64.min / 2 : time,
                sent: index % 5 == 0 ? nil : time - Int64.random(in: -90_000_000_000...90_000_000_000, using: &random),
                received: index % 9 == 0 ? nil : (extreme ? Int64.max : time + 1_234),
                properties: index % 2 == 0 ? nil : Array(#"{"context": {"plan": "pro"}, "n": \#(index)}"#.utf8))
        }
    }

    @Test func decodingGivesBackEveryColumnOfEveryRow() throws {
        var random = Random(state: 33)
        for count in [0, 1, 2, 17, 400] {
            let rows = Self.rows(count: count, random: &random)
            #expect(try SessionTrace.decode(SessionTrace.encode(rows)) == rows, "\(count) rows")
        }
    }

    @Test func theSameRowsAlwaysEncodeToTheSameBytes() {
        var first = Random(state: 7)
        var second = Random(state: 7)
        let rows = Self.rows(count: 50, random: &first)
        #expect(SessionTrace.encode(rows) == SessionTrace.encode(Self.rows(count: 50, random: &second)))
        var changed = rows
        changed[11].seq += 1
        #expect(SessionTrace.encode(changed) != SessionTrace.encode(rows))
    }

    @Test func repeatedStringsAreStoredOnce() {
        var random = Random(state: 1)
        var rows = Self.rows(count: 200, random: &random)
        for index in rows.indices { rows[index].stepID = Array("a-step-id-of-some-length".utf8) }
        let trace = SessionTrace.encode(rows)
        let occurrences = trace.indices.dropLast(24).filter {
            trace[$0..<($0 + 24)].elementsEqual("a-step-id-of-some-length".utf8)
        }
        #expect(occurrences.count == 1)
    }

    /// Past a couple of dozen strings the encoder finds them by hash instead of a scan: each
    /// string must still be stored once, numbered in order of first use (user, kind, flow, step,
    /// name, properties of each row in turn).
    @Test func manyStringsAreStoredOnceInOrderOfFirstUse() throws {
        var random = Random(state: 9)
        var rows = Self.rows(count: 300, random: &random)
        for index in rows.indices {
            rows[index].userID = Array("user-1".utf8)
            rows[index].flowID = nil
            rows[index].stepID = nil
            rows[index].name = Array("name-\((index * 7) % 90)".utf8)
            rows[index].properties = nil
        }
        var expected: [[UInt8]] = []
        for row in rows {
            for string in [row.userID, row.kind, row.name].compactMap({ $0 }) where !expected.contains(string) {
                expected.append(string)
            }
        }
        let trace = SessionTrace.encode(rows)
        let strings = try trace.withUnsafeBytes { bytes in
            let cursor = try TraceCursor(bytes)
            return (1...cursor.stringCount).map {
                Array(cursor.string($0) ?? UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
        #expect(expected.count == 94)
        #expect(strings == expected)
        #expect(try SessionTrace.decode(trace) == rows)
    }

    @Test func everyTruncationOrCorruptionIsAnErrorNotATrap() throws {
        var random = Random(state: 5)
        let trace = SessionTrace.encode(Self.rows(count: 12, random: &random))
        for length in 0..<trace.count {
            #expect(throws: TraceError.self) { try SessionTrace.decode(Array(trace.prefix(length))) }
        }
        #expect(throws: TraceError.self) { try SessionTrace.decode(trace + [0]) }
        var wrongVersion = trace
        wrongVersion[0] = 2
        #expect(throws: TraceError.self) { try SessionTrace.decode(wrongVersion) }
        // Flipped bytes decode to other rows or fail, never crash.
        for position in stride(from: 1, to: trace.count, by: 3) {
            var corrupted = trace
            corrupted[position] ^= 0xFF
            _ = try? SessionTrace.decode(corrupted)
        }
    }
}
