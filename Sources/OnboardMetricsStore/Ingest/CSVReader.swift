import OnboardMetricsSDK

/// Splits CSV records into fields per RFC 4180: fields separated by commas, a field in double
/// quotes may hold commas, line breaks and `""` for a quote.
///
/// Records are fed one physical line at a time (``LineReader`` drops each line's `\r`); a record
/// whose quoted field spans lines waits for the next line, and its line breaks read as `\n`.
/// Unlike RFC 4180 strictly, a quote inside an unquoted field is kept as text.
///
/// Each line is scanned once while a record is open, and the record is split once when it
/// closes, so reading is linear in the input. A quoted field may run for at most
/// ``maximumRecordLines`` lines and ``maximumRecordLength`` bytes: past that (or at the end of
/// the input) its first line is rejected as malformed and reading starts again at the line after
/// it, so one stray quote costs one line, not the rest of the file.
package struct CSVReader {
    /// The outcome of splitting a complete record.
    package enum Outcome: Equatable {
        /// A complete record.
        case record([String])
        /// A quoted field is still open: feed the next line.
        case needsMore
        /// The record cannot be read; the reason says why.
        case malformed(String)
    }

    /// A record (or a malformed one) with the line it began on and its raw bytes.
    package struct Record {
        /// `.record` or `.malformed`, never `.needsMore`.
        package var outcome: Outcome
        /// The number of the line the record began on.
        package var line: Int
        /// The record's bytes as read (lines joined by `\n`).
        package var raw: [UInt8]
    }

    /// The field separator (a comma unless set).
    package var separator: UInt8 = 44
    /// Most lines a quoted field may span.
    package var maximumRecordLines = 100
    /// Longest record kept while waiting for a quote to close, in bytes.
    package var maximumRecordLength = 1 << 20
    /// Fields a record has (the header's count, once known): a record spanning lines with
    /// another count is taken for a stray quote, and the lines are read again one by one.
    package var expectedFieldCount: Int?
    /// The lines of the open record.
    private var pending: [(number: Int, bytes: [UInt8])] = []
    private var pendingBytes = 0

    package init(separator: UInt8 = 44) {
        self.separator = separator
    }

    /// Whether an open quoted field is waiting for more lines.
    package var isPending: Bool { !pending.isEmpty }

    /// Feeds physical line `number`; calls `body` for each record it completes, in order.
    /// - Returns: false once `body` returned false (stop reading).
    package mutating func feed(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, _ body: (Record) throws -> Bool
    ) rethrows -> Bool {
        guard !pending.isEmpty else {
            // A blank line between records is not a record.
            if line.isEmpty { return true }
            let outcome = Self.split(line, separator: separator)
            if outcome == .needsMore {
                pending = [(number, Array(line))]
                pendingBytes = line.count
                return true
            }
            return try body(Record(outcome: outcome, line: number, raw: Array(line)))
        }
        pending.append((number, Array(line)))
        pendingBytes += line.count + 1
        if !Self.endsInsideQuotes(line, separator: separator, startingInside: true) {
            let lines = pending
            pending = []
            pendingBytes = 0
            var raw: [UInt8] = []
            raw.reserveCapacity(lines.reduce(0) { $0 + $1.bytes.count + 1 })
            for (index, part) in lines.enumerated() {
                if index > 0 { raw.append(10) }
                raw.append(contentsOf: part.bytes)
            }
            let outcome = raw.withUnsafeBufferPointer { Self.split($0, separator: separator) }
            switch outcome {
            case .record(let fields) where expectedFieldCount.map({ $0 == fields.count }) ?? true:
                return try body(Record(outcome: outcome, line: lines[0].number, raw: raw))
            default:
                // The quote that closed it was a stray one too: the lines in between are records
                // of their own, not one field.
                pending = lines
                return try resynchronize(
                    "a quoted field opened on this line runs over \(lines.count) lines into a malformed record; "
                        + "the line is skipped and reading goes on with the next one", body)
            }
        }
        if pending.count > maximumRecordLines || pendingBytes > maximumRecordLength {
            return try resynchronize(
                "a quoted field is not closed within \(maximumRecordLines) lines or \(maximumRecordLength) bytes; "
                    + "the line is skipped and reading goes on with the next one", body)
        }
        return true
    }

    /// Ends the input: a record still open is rejected by its first line, and the lines after it
    /// are read again as records of their own.
    /// - Returns: false once `body` returned false.
    package mutating func finish(_ body: (Record) throws -> Bool) rethrows -> Bool {
        while !pending.isEmpty {
            guard try resynchronize("a quoted field is not closed before the end of the file", body) else {
                return false
            }
        }
        return true
    }

    /// Rejects the open record's first line and feeds the lines after it again.
    private mutating func resynchronize(_ reason: String, _ body: (Record) throws -> Bool) rethrows -> Bool {
        let lines = pending
        pending = []
        pendingBytes = 0
        guard try body(Record(outcome: .malformed(reason), line: lines[0].number, raw: lines[0].bytes)) else {
            return false
        }
        for part in lines.dropFirst() {
            let more = try part.bytes.withUnsafeBufferPointer { try feed($0, number: part.number, body) }
            guard more else { return false }
        }
        return true
    }

    /// Whether a quoted field is still open at the end of `line`, reading it from inside an open
    /// quoted field (`startingInside`) or from the start of a record.
    static func endsInsideQuotes(_ line: UnsafeBufferPointer<UInt8>, separator: UInt8, startingInside: Bool) -> Bool {
        var inside = startingInside
        var atFieldStart = !startingInside
        var index = 0
        let count = line.count
        while index < count {
            let byte = line[index]
            index += 1
            if inside {
                guard byte == 34 else { continue }
                if index < count, line[index] == 34 {
                    index += 1
                } else {
                    inside = false
                }
            } else if byte == separator {
                atFieldStart = true
            } else {
                if byte == 34, atFieldStart { inside = true }
                atFieldStart = false
            }
        }
        return inside
    }

    /// The fields of one complete record, `.needsMore` if a quoted field is open at its end.
    package static func split(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8 = 44) -> Outcome {
        var fields: [String] = []
        var index = 0
        let count = bytes.count
        func field(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
            UTF8Validation.isValid(raw) ? String(decoding: raw, as: UTF8.self) : nil
        }
        while true {
            if index < count, bytes[index] == 34 {
                index += 1
                var value: [UInt8] = []
                var closed = false
                while index < count {
                    let byte = bytes[index]
                    index += 1
                    if byte == 34 {
                        if index < count, bytes[index] == 34 {
                            value.append(34)
                            index += 1
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        value.append(byte)
                    }
                }
                guard closed else { return .needsMore }
                guard let text = value.withUnsafeBufferPointer(field) else {
                    return .malformed("field \(fields.count + 1) is not valid UTF-8")
                }
                fields.append(text)
                if index == count { return .record(fields) }
                guard bytes[index] == separator else {
                    return .malformed("field \(fields.count) has text after its closing quote")
                }
                index += 1
            } else {
                let start = index
                while index < count, bytes[index] != separator { index += 1 }
                guard let text = field(UnsafeBufferPointer(rebasing: bytes[start..<index])) else {
                    return .malformed("field \(fields.count + 1) is not valid UTF-8")
                }
                fields.append(text)
                if index == count { return .record(fields) }
                index += 1
            }
        }
    }
}
