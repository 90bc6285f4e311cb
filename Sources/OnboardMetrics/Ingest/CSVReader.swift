/// Splits CSV records into fields per RFC 4180: fields separated by commas, a field in double
/// quotes may hold commas, line breaks and `""` for a quote.
///
/// Records are fed one physical line at a time (``LineReader`` drops each line's `\r`); a record
/// whose quoted field spans lines waits for the next line, and its line breaks read as `\n`.
/// Unlike RFC 4180 strictly, a quote inside an unquoted field is kept as text.
package struct CSVReader {
    /// The outcome of feeding a line.
    package enum Outcome: Equatable {
        /// A complete record.
        case record([String])
        /// A quoted field is still open: feed the next line.
        case needsMore
        /// The record cannot be read; the reason says why.
        case malformed(String)
    }

    /// The field separator (a comma unless set).
    package var separator: UInt8 = 44
    /// Longest record kept while waiting for a quote to close.
    package var maximumRecordLength = 16 << 20
    private var pending: [UInt8] = []

    package init(separator: UInt8 = 44) {
        self.separator = separator
    }

    /// Whether an open quoted field is waiting for more lines.
    package var isPending: Bool { !pending.isEmpty }

    /// Feeds one physical line.
    package mutating func feed(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        if pending.isEmpty {
            let outcome = Self.split(line, separator: separator)
            if outcome == .needsMore { pending.append(contentsOf: line) }
            return outcome
        }
        pending.append(10)
        pending.append(contentsOf: line)
        if pending.count > maximumRecordLength {
            pending.removeAll()
            return .malformed("a quoted field is not closed within \(maximumRecordLength) bytes")
        }
        let outcome = pending.withUnsafeBufferPointer { Self.split($0, separator: separator) }
        if outcome != .needsMore { pending.removeAll(keepingCapacity: true) }
        return outcome
    }

    /// Ends the input: a record still waiting for a closing quote is malformed.
    package mutating func finish() -> Outcome? {
        guard !pending.isEmpty else { return nil }
        pending.removeAll()
        return .malformed("a quoted field is not closed before the end of the file")
    }

    /// The fields of one complete record, `.needsMore` if a quoted field is open at its end.
    package static func split(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8 = 44) -> Outcome {
        var fields: [String] = []
        var index = 0
        let count = bytes.count
        while true {
            if index < count, bytes[index] == 34 {
                index += 1
                var field: [UInt8] = []
                var closed = false
                while index < count {
                    let byte = bytes[index]
                    index += 1
                    if byte == 34 {
                        if index < count, bytes[index] == 34 {
                            field.append(34)
                            index += 1
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        field.append(byte)
                    }
                }
                guard closed else { return .needsMore }
                fields.append(String(decoding: field, as: UTF8.self))
                if index == count { return .record(fields) }
                guard bytes[index] == separator else {
                    return .malformed("field \(fields.count) has text after its closing quote")
                }
                index += 1
            } else {
                let start = index
                while index < count, bytes[index] != separator { index += 1 }
                fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                if index == count { return .record(fields) }
                index += 1
            }
        }
    }
}
