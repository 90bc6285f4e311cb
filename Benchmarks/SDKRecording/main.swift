import Foundation
import OnboardMetricsSDK
import OnboardMetricsURLSession

// What the SDK costs an app, in a release build: the time of one `HTTPTransport.record` call on
// the caller's thread, and how fast the transport's worker moves events into its fsynced outbox,
// against a raw append of the same bytes with the same number of fsyncs (the disk's own limit).
// Nothing is sent: the endpoint is a closed loopback port, and the first failed attempt backs off
// for longer than the run. Run by scripts/bench-sdk.sh; figures in BENCHMARKS.md.

let arguments = CommandLine.arguments
let eventCount = arguments.count > 1 ? Int(arguments[1]) ?? 200_000 : 200_000
let folder = arguments.count > 2 ? arguments[2] : NSTemporaryDirectory() + "sdk-bench-\(getpid())"

/// Realistic onboarding events: step views and completions of a health-study flow with the
/// properties an app sends, each with its own UUIDv7, stamped now (the validator checks times).
func makeEvents(_ count: Int) -> [Event] {
    var random = SystemRandomNumberGenerator()
    var ids = UUIDv7Generator()
    let now = Date()
    let steps = ["welcome", "consent", "permissions", "profile", "goals", "reminders", "done"]
    var events: [Event] = []
    events.reserveCapacity(count)
    var session = UUID()
    for index in 0..<count {
        if index % 14 == 0 { session = UUID() }
        let step = steps[(index / 2) % steps.count]
        events.append(
            Event(
                eventID: ids.next(at: now, using: &random), sessionID: session, userID: "user-\(index / 14)",
                seq: index % 14 + 1, kind: index % 2 == 0 ? .stepViewed : .stepCompleted,
                flowID: "health-study", flowVersion: 3, stepID: step, occurredAt: now,
                properties: [
                    "platform": .string("ios"), "appVersion": .string("2.10.1"),
                    "healthDataAvailable": .bool(true),
                ]))
    }
    return events
}

/// A transport writing to `directory` that never reaches a server.
func makeTransport(directory: String, bufferedEvents: Int?, persists: Counter) throws -> HTTPTransport {
    // Port 9 (discard) on loopback: nothing listens, so the one attempt fails at once.
    guard let endpoint = URL(string: "http://127.0.0.1:9") else { throw CocoaError(.fileReadInvalidFileName) }
    var configuration = HTTPTransport.Configuration(
        endpoint: endpoint, appKey: "om_benchmark", queueDirectory: directory)
    configuration.maximumQueueBytes = 1 << 30
    configuration.maximumBufferedEvents = bufferedEvents
    configuration.initialBackoff = 3_600
    configuration.maximumBackoff = 3_600
    configuration.log = { _ in }
    return try HTTPTransport(
        configuration: configuration,
        poster: URLSessionBatchPoster(endpoint: configuration.endpoint, timeout: 1),
        beforeDiskWrite: { persists.increment() })
}

/// Counts the worker's disk writes (one fsynced record each).
final class Counter: Sendable {
    private let count = LockedBox(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.down)))]
}

func fixed(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

try? FileManager.default.removeItem(atPath: folder)
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }
let clock = ContinuousClock()
print("events: \(eventCount), folder: \(folder)")

// 1. The caller's cost: every call timed, with the default buffer (the oldest are dropped when
//    the app records faster than the disk takes them; the call never waits).
do {
    let events = makeEvents(eventCount)
    let persists = Counter()
    let transport = try makeTransport(directory: folder + "/caller", bufferedEvents: nil, persists: persists)
    var nanoseconds: [Double] = []
    nanoseconds.reserveCapacity(events.count)
    let started = clock.now
    for event in events {
        let before = clock.now
        try transport.record(event)
        nanoseconds.append(seconds(clock.now - before) * 1e9)
    }
    let total = seconds(clock.now - started)
    let counters = transport.counters
    await transport.shutdown()
    nanoseconds.sort()
    let mean = nanoseconds.reduce(0, +) / Double(nanoseconds.count)
    print(
        "record(): mean \(fixed(mean, 0)) ns, p50 \(fixed(percentile(nanoseconds, 0.5), 0)) ns, "
            + "p99 \(fixed(percentile(nanoseconds, 0.99), 0)) ns, p99.9 \(fixed(percentile(nanoseconds, 0.999), 0)) ns, "
            + "max \(fixed((nanoseconds.last ?? 0) / 1e3, 0)) µs; \(eventCount) calls in \(fixed(total, 3)) s "
            + "(\(fixed(Double(eventCount) / total, 0)) calls/s); dropped while the disk caught up: \(counters.dropped)"
    )
}

// 2. The outbox's disk rate: the transport's on-disk queue appending the events in records of a
//    batch (100, the default batch size: the worker writes when a batch's worth has gathered),
//    each encoded, checksummed, written and fsynced.
let events = makeEvents(eventCount)
let batchSize = HTTPTransport.Configuration(endpoint: URL(fileURLWithPath: "/"), appKey: "").batchSize
let chunks = stride(from: 0, to: events.count, by: batchSize).map {
    Array(events[$0..<min(events.count, $0 + batchSize)])
}
let encoded: [[UInt8]] = chunks.map { chunk in
    var bytes: [UInt8] = []
    for event in chunk {
        event.appendJSONLine(to: &bytes)
        bytes.append(0x0A)
    }
    return bytes
}
let megabytes = Double(encoded.reduce(0) { $0 + $1.count }) / 1_048_576

/// The outbox appending every chunk: encoded, checksummed, written and fsynced, record by record.
func outboxPass(_ round: Int) throws -> Double {
    let outbox = TransportOutbox(
        spool: try Spool(directory: folder + "/outbox-\(round)", capacityBytes: 1 << 30, log: { print($0) }))
    let started = clock.now
    for chunk in chunks { _ = try outbox.append(chunk) }
    let elapsed = seconds(clock.now - started)
    outbox.close()
    try? FileManager.default.removeItem(atPath: folder + "/outbox-\(round)")
    return elapsed
}

/// 3. The limit: the same events' bytes (their JSON lines), encoded beforehand, appended to one
/// file in the same number of writes, each followed by fsync.
func rawPass(_ round: Int) throws -> Double {
    let path = folder + "/raw-\(round).jsonl"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer {
        close(descriptor)
        unlink(path)
    }
    let started = clock.now
    for bytes in encoded {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
    return seconds(clock.now - started)
}

// fsync times move with whatever else the disk does: alternate the two, compare medians.
let rounds = 5
var outboxTimes: [Double] = []
var rawTimes: [Double] = []
for round in 0..<rounds {
    outboxTimes.append(try outboxPass(round))
    rawTimes.append(try rawPass(round))
}
let outboxSeconds = outboxTimes.sorted()[rounds / 2]
let rawSeconds = rawTimes.sorted()[rounds / 2]

print(
    "outbox append: \(eventCount) events in \(chunks.count) fsynced records of \(batchSize), median of \(rounds): "
        + "\(fixed(outboxSeconds, 3)) s, \(fixed(Double(eventCount) / outboxSeconds, 0)) events/s")
print(
    "raw append of the same \(fixed(megabytes, 1)) MiB in \(encoded.count) fsynced writes, median of \(rounds): "
        + "\(fixed(rawSeconds, 3)) s, \(fixed(Double(eventCount) / rawSeconds, 0)) events/s")
print("outbox append / raw fsynced append (speed): \(fixed(rawSeconds / outboxSeconds))x")

// 4. End to end through the transport: from the first record() to every event in the outbox,
//    with a buffer large enough that nothing drops (the worker writes whatever has gathered).
do {
    let persists = Counter()
    let transport = try makeTransport(directory: folder + "/transport", bufferedEvents: eventCount, persists: persists)
    let started = clock.now
    for event in events { try transport.record(event) }
    while transport.counters.queued + transport.counters.dropped < eventCount {
        try await Task.sleep(for: .milliseconds(1))
    }
    let elapsed = seconds(clock.now - started)
    let counters = transport.counters
    await transport.shutdown()
    print(
        "record() to outbox: \(eventCount) events in \(fixed(elapsed, 3)) s "
            + "(\(fixed(Double(eventCount) / elapsed, 0)) events/s, \(persists.value) fsynced records), "
            + "dropped \(counters.dropped)")
}
