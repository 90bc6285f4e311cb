// libFuzzer entry point for the parsers that read untrusted input: the JSON event parser, the
// CSV reader, the condition parser, the collector's batch parser, Segment's and PostHog's bodies
// (as the collector and an export's lines read them, through the mapping to events) and the
// flow loader.
//
// Built by scripts/fuzz.sh with `swiftc -sanitize=fuzzer,address` together with the sources it
// exercises (one module, so `package` declarations are visible), not by `swift build`. The target
// is chosen by the FUZZ_TARGET environment variable. A trap, a crash or a sanitizer report is a
// finding; an error thrown for bad input is the expected outcome.

import Foundation

private enum FuzzTarget: String {
    case jsonEvent = "json-event"
    case csv
    case condition
    case batch
    case segment
    case posthog
    case flow
}

/// What a Segment or PostHog message becomes: an event, validated as the collector validates it.
private func mapAndValidate(_ message: AnalyticsMessage) {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    if let event = try? EventMapping().event(for: message, receivedAt: now) {
        try? EventValidator().validate(event, now: now)
        _ = event.jsonLine
    }
}

private let target = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "") ?? .jsonEvent

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    switch target {
    case .jsonEvent:
        let parser = JSONEventParser()
        if let event = try? parser.parse(bytes) {
            try? EventValidator().validate(event, now: Date(timeIntervalSince1970: 1_790_000_000))
            // What the parser accepted must survive the writer and read back the same.
            let line = Array(event.jsonLine.utf8)
            let again = line.withUnsafeBufferPointer { try? parser.parse($0) }
            if again?.eventID != event.eventID { fatalError("a parsed event does not read back: \(event.jsonLine)") }
        }
    case .csv:
        var reader = CSVReader()
        reader.maximumRecordLines = 8
        var number = 0
        var start = 0
        var records = 0
        let body: (CSVReader.Record) -> Bool = { _ in
            records += 1
            return true
        }
        for index in 0...size where index == size || bytes[index] == 10 {
            number += 1
            _ = reader.feed(UnsafeBufferPointer(rebasing: bytes[start..<index]), number: number, body)
            start = index + 1
        }
        _ = reader.finish(body)
        if records > number { fatalError("more records than lines") }
    case .condition:
        let condition = Condition(String(decoding: bytes, as: UTF8.self))
        _ = condition.evaluate(["platform": .string("ios"), "n": .number(3), "flag": .bool(true)])
    case .batch:
        _ = try? EventBatch.parse(bytes, maximumEvents: 1_000)
    case .segment:
        // The first byte picks the endpoint: a batch, or a single call of that type.
        guard let first = bytes.first else { break }
        let body = UnsafeBufferPointer(rebasing: bytes.dropFirst())
        let types = AnalyticsMessage.CallType.allCases
        let batch =
            Int(first) < types.count
            ? try? SegmentBatch.parseSingle(body, type: types[Int(first)], timestamps: TimestampParser())
            : try? SegmentBatch.parseBatch(body, maximumEvents: 1_000, timestamps: TimestampParser())
        for case .message(let message) in batch?.items ?? [] { mapAndValidate(message) }
    case .posthog:
        let batch = try? PostHogBatch.parse(bytes, maximumEvents: 1_000, timestamps: TimestampParser())
        for case .message(let message) in batch?.items ?? [] { mapAndValidate(message) }
    case .flow:
        if let flow = try? FlowDefinition.decode(from: Data(bytes)) {
            _ = try? FlowCatalog([flow])
            var navigator = FlowNavigator(flow: flow, context: ["platform": .string("ios")])
            _ = try? navigator.start()
        }
    }
    return 0
}
