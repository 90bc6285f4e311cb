import Benchmark
import Foundation
import OnboardMetricsSDK

/// The hand-written JSONL event reader (`JSONEventParser`, used by `funnel ingest` and the
/// collector) against Foundation's `JSONDecoder` with `Event`'s `Codable` conformance, on the
/// same lines: the reason the hand-written one exists. Each iteration reads 1,000 events.
let lines: [[UInt8]] = {
    var random = SystemRandomNumberGenerator()
    var ids = UUIDv7Generator()
    let start = Date(timeIntervalSince1970: 1_780_000_000)
    return (0..<1_000).map { index in
        var event = Event(
            eventID: ids.next(at: start.addingTimeInterval(Double(index)), using: &random),
            sessionID: UUID(), userID: "user-\(index % 97)", seq: index % 12 + 1, kind: .stepViewed,
            flowID: "health-study", flowVersion: 1, stepID: "consent",
            occurredAt: start.addingTimeInterval(Double(index)),
            properties: [
                "platform": .string("ios"), "appVersion": .string("2.10.1"), "healthDataAvailable": .bool(true),
            ])
        event.sentAt = start.addingTimeInterval(Double(index) + 1)
        return Array(event.jsonLine.utf8)
    }
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5))

    Benchmark("JSONEventParser (hand-written), 1,000 lines") { benchmark in
        let parser = JSONEventParser()
        for _ in benchmark.scaledIterations {
            for line in lines {
                let event = try line.withUnsafeBufferPointer { try parser.parse($0) }
                blackHole(event)
            }
        }
    }

    Benchmark("JSONDecoder (Foundation), 1,000 lines") { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            for line in lines {
                blackHole(try decoder.decode(Event.self, from: Data(line)))
            }
        }
    }
}
