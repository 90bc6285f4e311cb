// How fast could a report read a slim form of the sessions? (issue 33, docs/TRACES.md: "What a
// report within 2× of ClickHouse would need".) Not the product: a measurement of the design's
// premise, kept so that it can be run again (scripts/bench-slim-sessions.sh).
//
// It reads every session of a database as `funnel report` does (the traces, the default grouping,
// no bounds), writes each read connection's share in a slim form — the sessions after they are cut
// and their clocks corrected, strings and properties numbered once for the share, times and `seq`
// as varint deltas, no event ids, no sent or received times — and then times, best of RUNS:
//   - decoding the slim form back into `RecordedSession`s, one thread a share (what a report would
//     do instead of reading the traces from PostgreSQL), into a consumer that only counts;
//   - the same feeding the ad-hoc funnel's own aggregator (`AdHocFunnelAggregator`), as
//     `funnel report --steps` replays.
// Every decoded session must equal the one read (`==`), and the funnel's counts are printed.
// Usage: SlimSessions DATABASE_URL [RUNS] [STEPS]   (default 3, welcome,modules,consent,account)
import Foundation
import OnboardMetrics
import OnboardMetricsAnalysis
import OnboardMetricsReader

struct Collect: SessionConsumer {
    var sessions: [RecordedSession] = []
    mutating func add(_ session: RecordedSession) throws { sessions.append(session) }
}

struct Count: SessionConsumer {
    var events = 0
    mutating func add(_ session: RecordedSession) throws { events += session.events.count }
}

struct Funnel: SessionConsumer {
    var aggregator: AdHocFunnelAggregator
    mutating func add(_ session: RecordedSession) throws { aggregator.add(session) }
}

struct Compare: SessionConsumer {
    let expected: [RecordedSession]
    var position = 0
    var unequal = 0
    mutating func add(_ session: RecordedSession) throws {
        if position >= expected.count || session != expected[position] { unequal += 1 }
        position += 1
    }
}

struct SlimWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func string(_ text: String) {
        let utf8 = Array(text.utf8)
        varint(UInt64(utf8.count))
        bytes += utf8
    }

    mutating func json(_ value: JSONValue) {
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes.append(flag ? 2 : 1)
        case .number(let number):
            bytes.append(3)
            withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes += $0 }
        case .string(let text):
            bytes.append(4)
            string(text)
        case .array(let items):
            bytes.append(5)
            varint(UInt64(items.count))
            for item in items { json(item) }
        case .object(let members):
            bytes.append(6)
            varint(UInt64(members.count))
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                string(key)
                json(member)
            }
        }
    }
}

struct SlimReader {
    let base: UnsafePointer<UInt8>
    var offset = 0

    @inline(__always) mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return base[offset]
    }

    @inline(__always) mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = base[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    @inline(__always) mutating func zigzag() -> Int64 {
        let value = varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    mutating func string() -> String {
        let count = Int(varint())
        defer { offset += count }
        return String(decoding: UnsafeBufferPointer(start: base + offset, count: count), as: UTF8.self)
    }

    mutating func json() -> JSONValue {
        switch byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3:
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: base + offset, count: 8))
            }
            offset += 8
            return .number(Double(bitPattern: UInt64(littleEndian: bits)))
        case 4: return .string(string())
        case 5:
            let count = Int(varint())
            return .array((0..<count).map { _ in json() })
        default:
            let count = Int(varint())
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(count)
            for _ in 0..<count {
                let key = string()
                members[key] = json()
            }
            return .object(members)
        }
    }
}

let kinds = EventKind.allCases.map { $0 }
let kindNumbers = Dictionary(uniqueKeysWithValues: kinds.enumerated().map { ($1, UInt8($0)) })

/// The slim form of one share: its strings, then its properties objects, then its sessions.
func encode(_ sessions: [RecordedSession]) -> [UInt8] {
    var strings: [String: UInt64] = [:]
    var stringList: [String] = []
    var objects: [[String: JSONValue]: UInt64] = [:]
    var objectList: [[String: JSONValue]] = []
    func number(_ text: String?) -> UInt64 {
        guard let text else { return 0 }
        if let known = strings[text] { return known }
        stringList.append(text)
        strings[text] = UInt64(stringList.count)
        return UInt64(stringList.count)
    }
    func number(_ object: [String: JSONValue]) -> UInt64 {
        guard !object.isEmpty else { return 0 }
        if let known = objects[object] { return known }
        objectList.append(object)
        objects[object] = UInt64(objectList.count)
        return UInt64(objectList.count)
    }
    var body = SlimWriter()
    body.varint(UInt64(sessions.count))
    for session in sessions {
        withUnsafeBytes(of: session.sessionID.uuid) { body.bytes += $0 }
        body.varint(number(session.userID))
        body.varint(number(session.flowID))
        body.zigzag(session.flowVersion.map { Int64($0) + 1 } ?? 0)
        body.varint(number(session.context))
        body.varint(UInt64(session.events.count))
        var time: Int64 = 0
        var seq = 0
        for event in session.events {
            body.bytes.append(kindNumbers[event.kind] ?? 0)
            body.varint(number(event.flowID))
            body.zigzag(event.flowVersion.map { Int64($0) + 1 } ?? 0)
            body.varint(number(event.stepID))
            body.varint(number(event.name))
            body.zigzag(event.time &- time)
            body.zigzag(Int64(event.seq - seq))
            body.varint(number(event.properties))
            time = event.time
            seq = event.seq
        }
    }
    var head = SlimWriter()
    head.varint(UInt64(stringList.count))
    for text in stringList { head.string(text) }
    head.varint(UInt64(objectList.count))
    for object in objectList { head.json(.object(object)) }
    return head.bytes + body.bytes
}

/// Decodes a share's slim form into sessions, each handed to `consumer`; returns the events.
func decode<Consumer: SessionConsumer>(_ bytes: [UInt8], into consumer: inout Consumer) throws -> Int {
    try bytes.withUnsafeBufferPointer { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        var reader = SlimReader(base: base)
        var strings: [String?] = [nil]
        for _ in 0..<Int(reader.varint()) { strings.append(reader.string()) }
        var objects: [[String: JSONValue]] = [[:]]
        for _ in 0..<Int(reader.varint()) {
            if case .object(let members) = reader.json() { objects.append(members) }
        }
        var events: [RecordedEvent] = []
        var total = 0
        for _ in 0..<Int(reader.varint()) {
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: base + reader.offset, count: 16))
            }
            reader.offset += 16
            let user = strings[Int(reader.varint())] ?? ""
            let flow = strings[Int(reader.varint())]
            let version = reader.zigzag()
            let context = objects[Int(reader.varint())]
            let count = Int(reader.varint())
            events.removeAll(keepingCapacity: true)
            events.reserveCapacity(count)
            var time: Int64 = 0
            var seq = 0
            for _ in 0..<count {
                let kind = kinds[Int(reader.byte())]
                let eventFlow = strings[Int(reader.varint())]
                let eventVersion = reader.zigzag()
                let step = strings[Int(reader.varint())]
                let name = strings[Int(reader.varint())]
                time &+= reader.zigzag()
                seq += Int(reader.zigzag())
                let properties = objects[Int(reader.varint())]
                events.append(
                    RecordedEvent(
                        kind: kind, flowID: eventFlow, flowVersion: eventVersion == 0 ? nil : Int(eventVersion - 1),
                        stepID: step, name: name, time: time, seq: seq, properties: properties))
            }
            total += count
            try consumer.add(
                RecordedSession(
                    sessionID: UUID(uuid: uuid), userID: user, flowID: flow,
                    flowVersion: version == 0 ? nil : Int(version - 1), context: context, events: events))
        }
        return total
    }
}

/// Results written by one thread each, read once all have returned.
final class Slots: @unchecked Sendable {
    var values: [Int]
    init(_ count: Int) { values = Array(repeating: 0, count: count) }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: SlimSessions DATABASE_URL [RUNS] [STEPS]\n".utf8))
    exit(64)
}
let runs = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 3) : 3
let steps = (arguments.count > 3 ? arguments[3] : "welcome,modules,consent,account").split(separator: ",").map(
    String.init)
let funnel = try AdHocFunnel(steps: steps)
let deployment = try await ShardedReader.deployment(
    configuration: PostgresConfiguration(arguments[1]), reader: SessionReader(), connections: nil)
var started = Date()
let shares = try await deployment.reader.read { Collect() }.map(\.sessions)
let read = Date().timeIntervalSince(started)
let events = shares.reduce(0) { $0 + $1.reduce(0) { $0 + $1.events.count } }
started = Date()
let slim = shares.map(encode)
let bytes = slim.reduce(0) { $0 + $1.count }
print(
    String(
        format:
            "read from the traces: %.3f s, %d sessions, %d events, %d shares; slim form %.1f MB, %.2f bytes an event (encoded in %.2f s)",
        read, shares.reduce(0) { $0 + $1.count }, events, shares.count, Double(bytes) / 1e6,
        Double(bytes) / Double(max(1, events)), Date().timeIntervalSince(started)))
var unequal = 0
var whole = Funnel(aggregator: AdHocFunnelAggregator(funnel: funnel))
for (share, form) in zip(shares, slim) {
    var compare = Compare(expected: share)
    _ = try decode(form, into: &compare)
    unequal += compare.unequal + abs(share.count - compare.position)
    _ = try decode(form, into: &whole)
}
let counts = whole.aggregator.report().rows.map { String($0.count) }.joined(separator: " / ")
print("round trip: \(unequal) sessions unequal; funnel \(steps.joined(separator: ",")): \(counts)")
var bestDecode = Double.infinity
var bestFunnel = Double.infinity
for _ in 0..<runs {
    let results = Slots(slim.count)
    started = Date()
    DispatchQueue.concurrentPerform(iterations: slim.count) { share in
        var count = Count()
        results.values[share] = (try? decode(slim[share], into: &count)) ?? -1
    }
    bestDecode = min(bestDecode, Date().timeIntervalSince(started))
    started = Date()
    DispatchQueue.concurrentPerform(iterations: slim.count) { share in
        var replay = Funnel(aggregator: AdHocFunnelAggregator(funnel: funnel))
        results.values[share] = (try? decode(slim[share], into: &replay)) ?? -1
        _ = replay.aggregator.report()
    }
    bestFunnel = min(bestFunnel, Date().timeIntervalSince(started))
}
print(
    String(
        format: "best of %d on %d threads: decode %.3f s (%.1f ns an event a thread); decode and ad-hoc funnel %.3f s",
        runs, slim.count, bestDecode, bestDecode * 1e9 * Double(slim.count) / Double(max(1, events)), bestFunnel))
