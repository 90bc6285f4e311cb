import Foundation
import OnboardMetricsFormats
import OnboardMetricsSDK

/// Reads one input file into validated events, handed on in batches; bad lines go to the rejects
/// file and the reject callback. Runs on one blocking thread.
struct EventFileParser {
    /// What the parser reports back.
    struct Counts {
        var linesRead = 0
        var rejected = 0
        /// The consumer stopped taking batches.
        var stopped = false
    }

    let path: String
    let format: IngestOptions.Format
    let mapping: ColumnMapping?
    let timestamps: TimestampParser
    let now: Date
    let batchSize: Int
    /// For Segment and PostHog lines.
    var eventMapping = EventMapping()
    private let validator = EventValidator()

    init(
        path: String, format: IngestOptions.Format, mapping: ColumnMapping?, timestamps: TimestampParser, now: Date,
        batchSize: Int
    ) {
        self.path = path
        self.format = format
        self.mapping = mapping
        self.timestamps = timestamps
        self.now = now
        self.batchSize = max(batchSize, 1)
    }

    /// Parses the file.
    /// - Parameters:
    ///   - emit: takes a batch; false when the consumer stopped.
    ///   - reject: told of each rejected line.
    ///   - progress: told of the bytes consumed and lines read so far, every few thousand lines.
    func run(
        rejects: RejectsFile, emit: ([Event]) -> Bool, reject: (EventIngester.Rejection) -> Void,
        progress: (_ bytes: Int, _ lines: Int) -> Void
    ) throws -> Counts {
        var counts = Counts()
        var batch: [Event] = []
        batch.reserveCapacity(batchSize)
        let jsonParser = JSONEventParser(timestamps: timestamps)
        var csv = CSVReader()
        var csvBuilder: CSVEventBuilder?
        // Set here and handed to the reader between calls: the reader is busy while records are handled.
        var headerFieldCount: Int?
        var lastLine = 0

        func refuse(_ line: Int, _ reason: String, _ content: UnsafeBufferPointer<UInt8>?) throws {
            counts.rejected += 1
            try rejects.write(file: path, line: line, reason: reason, content: content)
            reject(EventIngester.Rejection(file: path, line: line, reason: reason))
        }

        func accept(_ event: Event) -> Bool {
            batch.append(event)
            guard batch.count >= batchSize else { return true }
            defer { batch.removeAll(keepingCapacity: true) }
            guard emit(batch) else {
                counts.stopped = true
                return false
            }
            return true
        }

        /// Handles a complete CSV record; false to stop.
        func handleCSV(_ record: CSVReader.Record) throws -> Bool {
            try record.raw.withUnsafeBufferPointer { try handleCSV(record.outcome, line: record.line, raw: $0) }
        }

        func handleCSV(_ outcome: CSVReader.Outcome, line: Int, raw: UnsafeBufferPointer<UInt8>) throws -> Bool {
            switch outcome {
            case .needsMore: return true
            case .malformed(let reason):
                if csvBuilder != nil { counts.linesRead += 1 }
                try refuse(line, reason, raw)
                return true
            case .record(let fields):
                guard csvBuilder != nil else {
                    // The first record is the header.
                    guard let mapping else { throw IngestError(.mapping, "\(path): CSV input needs --map options") }
                    csvBuilder = try CSVEventBuilder(header: fields, mapping: mapping, timestamps: timestamps)
                    headerFieldCount = fields.count
                    return true
                }
                counts.linesRead += 1
                do {
                    // Mutated in place through the optional: a copy would duplicate its tables per row.
                    guard let event = try csvBuilder?.event(from: fields) else { return true }
                    try validator.validate(event, now: now)
                    return accept(event)
                } catch let error as EventValidationError {
                    try refuse(line, error.description, raw)
                    return true
                }
            }
        }

        try LineReader(path: path).forEachLine { number, line, offset in
            lastLine = number
            if number % 4096 == 0 { progress(offset, counts.linesRead) }
            switch line {
            case .tooLong(let length):
                // An open CSV record ends here: its first line is rejected and the rest read again.
                if format == .csv, !(try csv.finish(handleCSV)) { return false }
                counts.linesRead += 1
                try refuse(number, "the line is \(length) bytes long; at most \(16 << 20) are read", nil)
                return true
            case .text(var text):
                if number == 1, text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF {
                    // A UTF-8 byte order mark, as spreadsheet exports write.
                    text = UnsafeBufferPointer(rebasing: text[3...])
                }
                switch format {
                case .jsonl:
                    if Self.isBlank(text) { return true }
                    counts.linesRead += 1
                    do {
                        let event = try jsonParser.parse(text)
                        try validator.validate(event, now: now)
                        return accept(event)
                    } catch let error as EventValidationError {
                        try refuse(number, error.description, text)
                        return true
                    }
                case .segment, .posthog:
                    if Self.isBlank(text) { return true }
                    counts.linesRead += 1
                    do {
                        let event = try eventMapping.event(
                            for: try Self.analyticsMessage(text, format: format, timestamps: timestamps),
                            receivedAt: nil)
                        try validator.validate(event, now: now)
                        return accept(event)
                    } catch let error as EventValidationError {
                        try refuse(number, error.description, text)
                        return true
                    }
                case .csv:
                    if !csv.isPending, text.isEmpty { return true }
                    csv.expectedFieldCount = headerFieldCount
                    return try csv.feed(text, number: number, handleCSV)
                }
            }
        }
        csv.expectedFieldCount = headerFieldCount
        if !counts.stopped { _ = try csv.finish(handleCSV) }
        if format == .csv, csvBuilder == nil, lastLine > 0 {
            throw IngestError(.format, "\(path): no header row")
        }
        if !batch.isEmpty, !emit(batch) { counts.stopped = true }
        return counts
    }

    /// A Segment or PostHog export line as a message.
    private static func analyticsMessage(
        _ line: UnsafeBufferPointer<UInt8>, format: IngestOptions.Format, timestamps: TimestampParser
    ) throws -> AnalyticsMessage {
        var cursor = JSONCursor(line)
        guard cursor.peek() == 123 else { throw cursor.error("a line is a JSON object") }
        let object = try cursor.object()
        cursor.skipWhitespace()
        guard cursor.atEnd else { throw cursor.error("text after the JSON object") }
        return format == .segment
            ? try SegmentBatch.message(object, defaultType: nil, batchSentAt: nil, timestamps: timestamps)
            : try PostHogBatch.message(object, batchSentAt: nil, timestamps: timestamps)
    }

    private static func isBlank(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.allSatisfy { $0 == 32 || $0 == 9 }
    }
}
