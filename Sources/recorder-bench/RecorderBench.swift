import ArgumentParser
import Foundation
import OnboardMetrics

/// Records synthetic events through `EventRecorder` and reports its rate: the recorder half of the
/// recording benchmark, and the process the crash tests kill.
///
/// Event `i` is a custom event `e<i>` of session `i / 10` with `properties.i = i`, and ids derived
/// from `i` and the seed, so a rerun produces the same events and checks can find each by `i`.
@main
struct RecorderBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recorder-bench",
        abstract: "Record N synthetic events through EventRecorder; print events per second.")

    @Option(help: "Events to record.") var events = 1_000_000
    @Option(help: "Seed of the event ids.") var seed: UInt64 = 1
    @Option(help: "Flush every N events and print `durable <count>` after each flush (0: only at the end).")
    var flushEvery = 0
    @Option(help: "Spool folder.") var spoolDir: String?
    @Option(help: "Events per COPY batch.") var batchSize = 5_000
    @Option(help: "Writer threads, each with its own connection (the recorder's default: 2).")
    var writeConnections = 2
    @Option(name: .customLong("database-url"), help: "Database (default DATABASE_URL).") var databaseURL: String?
    @Option(
        help: """
            Record the events of this JSONL file (e.g. `funnel generate` output, resends included) \
            instead of synthetic ones; the file is read and parsed before the clock starts, \
            and --events and --seed are ignored.
            """)
    var input: String?

    func run() async throws {
        guard let url = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw ValidationError("pass --database-url or set DATABASE_URL")
        }
        var configuration = EventRecorder.Configuration(database: PostgresConfiguration(url))
        configuration.spoolDirectory = spoolDir
        configuration.batchSize = batchSize
        configuration.writeConnections = writeConnections
        configuration.initialBackoff = 0.05
        configuration.maximumBackoff = 0.5
        let loaded = try input.map(Self.load)
        let events = loaded?.count ?? self.events
        let recorder = try EventRecorder(configuration: configuration)
        let base = Date(timeIntervalSince1970: 1_790_000_000)
        let started = Date()
        let (seed, flushEvery) = (self.seed, self.flushEvery)
        let (_, counters) = try await recorder.withRunning {
            for index in 0..<events {
                do {
                    try recorder.record(loaded?[index] ?? Self.event(index, seed: seed, base: base))
                } catch is EventValidationError {
                    continue  // counted as rejected; a file may hold events the validator refuses
                }
                if flushEvery > 0, (index + 1) % flushEvery == 0 {
                    await recorder.flush()
                    FileHandle.standardOutput.write(Data("durable \(index + 1)\n".utf8))
                }
            }
            await recorder.flush()
        }
        let seconds = Date().timeIntervalSince(started)
        print("durable \(events)")
        print(
            "recorded \(counters.recorded) committed \(counters.committed) duplicates \(counters.duplicates) "
                + "rejected \(counters.rejected) spooled \(counters.spooled) retried \(counters.retried) dropped \(counters.dropped) "
                + "seconds \(String(format: "%.3f", seconds)) events_per_second \(Int(Double(events) / seconds))")
    }

    /// The events of a JSONL file; lines that do not parse are skipped (and counted on stderr).
    static func load(_ path: String) throws -> [Event] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let parser = JSONEventParser()
        var events: [Event] = []
        var skipped = 0
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress else { return }
            var start = 0
            while start < bytes.count {
                let newline = memchr(base + start, 10, bytes.count - start)
                let end =
                    newline.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? bytes.count
                if end > start {
                    do {
                        events.append(try parser.parse(UnsafeBufferPointer(rebasing: bytes[start..<end])))
                    } catch {
                        skipped += 1
                    }
                }
                start = end + 1
            }
        }
        if skipped > 0 { FileHandle.standardError.write(Data("skipped \(skipped) lines that do not parse\n".utf8)) }
        return events
    }

    /// Synthetic event number `index`.
    static func event(_ index: Int, seed: UInt64, base: Date) -> Event {
        let at = base.addingTimeInterval(Double(index) * 0.001)
        let milliseconds = UInt64(at.timeIntervalSince1970 * 1000)
        let mixed = mix(UInt64(index) ^ (seed &* 0x9E37_79B9_7F4A_7C15))
        let session = mix(UInt64(index / 10) ^ seed)
        return Event(
            eventID: uuid(
                high: milliseconds << 16 | 0x7000 | (mixed >> 52),
                low: 0x8000_0000_0000_0000 | (mixed & 0x3FFF_FFFF_FFFF_FFFF)),
            sessionID: uuid(
                high: session & 0xFFFF_FFFF_FFFF_0FFF | 0x4000, low: 0x8000_0000_0000_0000 | (session >> 2)),
            userID: "bench-user-\(index / 50)", seq: index % 10, kind: .custom, flowID: "bench", flowVersion: 1,
            name: "e\(index)", occurredAt: at, properties: ["i": .number(Double(index))])
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func uuid(high: UInt64, low: UInt64) -> UUID {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: high.bigEndian) { bytes += $0 }
        withUnsafeBytes(of: low.bigEndian) { bytes += $0 }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }
}
