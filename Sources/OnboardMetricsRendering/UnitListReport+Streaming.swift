import Foundation
import OnboardMetricsAnalysis

extension UnitListReport {
    /// Rows rendered at a time by ``write(_:batch:to:)``.
    public static let streamingBatch = 1_000

    /// The list in a format, handed to `write` in pieces whose concatenation is exactly
    /// ``rendered(_:)``: JSON and CSV `batch` rows at a time, text and Markdown whole (their
    /// columns are as wide as the widest cell of all rows).
    ///
    /// Why: a long list as one string, with the encoder's tree of every row beside it, peaked at
    /// 843 MB for 569k rows as JSON at 10M events; a piece at a time it is the rows' own size.
    public func write(_ format: ReportFormat, batch: Int = streamingBatch, to write: (String) throws -> Void) throws {
        let size = max(1, batch)
        switch format {
        case .json:
            try writeJSON(batch: size, to: write)
        case .csv:
            var part = self
            part.rows = []
            try write(part.table.csv)
            for start in stride(from: 0, to: rows.count, by: size) {
                part.rows = Array(rows[start..<min(start + size, rows.count)])
                // The batch's table without its header line.
                let csv = part.table.csv
                if let newline = csv.firstIndex(of: "\n") { try write(String(csv[newline...])) }
            }
        case .markdown, .text:
            try write(rendered(format))
        }
    }

    /// The envelope encoded with no rows, its empty `rows` array replaced by the rows, encoded a
    /// batch at a time and indented one level deeper, as the encoder nests them.
    private func writeJSON(batch: Int, to write: (String) throws -> Void) throws {
        var envelope = self
        envelope.rows = []
        let empty = try ReportJSON.encode(envelope)
        // How the encoder prints an empty array at the top level's keys; a string value cannot
        // hold it (its newlines are escaped).
        let marker = "\"rows\" : [\n\n  ]"
        guard !rows.isEmpty, let place = empty.range(of: marker) else {
            try write(rows.isEmpty ? empty : ReportJSON.encode(self))
            return
        }
        try write(String(empty[..<place.lowerBound]) + "\"rows\" : [")
        for start in stride(from: 0, to: rows.count, by: batch) {
            // "[\n  {\n    ...\n  },\n  {\n ...\n  }\n]": the elements between the brackets,
            // each line two spaces deeper. Bytes, not characters: splitting 139 MB of JSON into
            // lines of `Character`s took seconds.
            var encoded = try ReportJSON.encode(Array(rows[start..<min(start + batch, rows.count)]))
            let piece = encoded.withUTF8 { utf8 -> String in
                let elements = UnsafeBufferPointer(rebasing: utf8[min(2, utf8.count)..<max(2, utf8.count - 2)])
                var bytes: [UInt8] = []
                bytes.reserveCapacity(elements.count + elements.count / 8 + 4)
                bytes.append(contentsOf: (start == 0 ? "\n  " : ",\n  ").utf8)
                for byte in elements {
                    bytes.append(byte)
                    if byte == UInt8(ascii: "\n") {
                        bytes.append(UInt8(ascii: " "))
                        bytes.append(UInt8(ascii: " "))
                    }
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            try write(piece)
        }
        try write("\n  ]" + String(empty[place.upperBound...]))
    }
}
