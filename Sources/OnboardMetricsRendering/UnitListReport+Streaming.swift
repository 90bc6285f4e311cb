import Foundation
import OnboardMetricsAnalysis

extension UnitListReport {
    /// Rows rendered at a time by ``write(_:batch:to:)``.
    public static let streamingBatch = 1_000

    /// The pieces of the list in a format, made one at a time when asked for: their
    /// concatenation is exactly ``rendered(_:)``. JSON and CSV come `batch` rows a piece, text and
    /// Markdown whole (their columns are as wide as the widest cell of all rows).
    ///
    /// Why: a long list as one string, with the encoder's tree of every row beside it, peaked at
    /// 843 MB for 569k rows as JSON at 10M events; a piece at a time it is the rows' own size.
    public struct Pieces: Sendable {
        /// How many pieces there are.
        public let count: Int
        private let make: @Sendable (Int) throws -> String

        init(count: Int, make: @escaping @Sendable (Int) throws -> String) {
            self.count = count
            self.make = make
        }

        /// The piece at `index` (in `0..<count`).
        /// - Throws: `EncodingError` when a row cannot be encoded.
        public func piece(_ index: Int) throws -> String { try make(index) }
    }

    /// The list's pieces in a format (see ``Pieces``).
    /// - Throws: `EncodingError` when the report cannot be encoded.
    public func pieces(_ format: ReportFormat, batch: Int = streamingBatch) throws -> Pieces {
        let size = max(1, batch)
        let batches = (rows.count + size - 1) / size
        let report = self
        let range: @Sendable (Int) -> Range<Int> = { index in index * size..<min((index + 1) * size, report.rows.count)
        }
        switch format {
        case .json:
            var envelope = self
            envelope.rows = []
            let empty = try ReportJSON.encode(envelope)
            // How the encoder prints an empty array at the top level's keys; a string value
            // cannot hold it (its newlines are escaped).
            let marker = "\"rows\" : [\n\n  ]"
            guard !rows.isEmpty, let place = empty.range(of: marker) else {
                let whole = rows.isEmpty ? empty : try ReportJSON.encode(self)
                return Pieces(count: 1) { _ in whole }
            }
            let head = String(empty[..<place.lowerBound]) + "\"rows\" : ["
            let tail = "\n  ]" + String(empty[place.upperBound...])
            return Pieces(count: batches + 2) { index in
                if index == 0 { return head }
                if index == batches + 1 { return tail }
                return try Self.jsonElements(Array(report.rows[range(index - 1)]), first: index == 1)
            }
        case .csv:
            var header = self
            header.rows = []
            let headerLine = header.table.csv
            return Pieces(count: batches + 1) { index in
                guard index > 0 else { return headerLine }
                var part = report
                part.rows = Array(report.rows[range(index - 1)])
                // The batch's table without its header line.
                let csv = part.table.csv
                return csv.firstIndex(of: "\n").map { String(csv[$0...]) } ?? ""
            }
        case .markdown, .text:
            let whole = try rendered(format)
            return Pieces(count: 1) { _ in whole }
        }
    }

    /// Hands the list's pieces (``pieces(_:batch:)``) to `write` one at a time.
    public func write(_ format: ReportFormat, batch: Int = streamingBatch, to write: (String) throws -> Void) throws {
        let pieces = try pieces(format, batch: batch)
        for index in 0..<pieces.count { try write(pieces.piece(index)) }
    }

    /// Rows as the elements of the report's `rows` array: encoded alone ("[\n  {\n    ...\n  },\n
    /// {\n ...\n  }\n]"), the brackets dropped and each line two spaces deeper, as the encoder
    /// nests them; after a comma unless `first`. Bytes, not characters: splitting 139 MB of JSON
    /// into lines of `Character`s took seconds.
    private static func jsonElements(_ rows: [Row], first: Bool) throws -> String {
        var encoded = try ReportJSON.encode(rows)
        return encoded.withUTF8 { utf8 -> String in
            let elements = UnsafeBufferPointer(rebasing: utf8[min(2, utf8.count)..<max(2, utf8.count - 2)])
            var bytes: [UInt8] = []
            bytes.reserveCapacity(elements.count + elements.count / 8 + 4)
            bytes.append(contentsOf: (first ? "\n  " : ",\n  ").utf8)
            for byte in elements {
                bytes.append(byte)
                if byte == UInt8(ascii: "\n") {
                    bytes.append(UInt8(ascii: " "))
                    bytes.append(UInt8(ascii: " "))
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
