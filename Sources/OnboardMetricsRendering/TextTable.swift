/// A table of strings — a header and rows — and its renderings as aligned text, CSV (RFC 4180)
/// and a Markdown table. Reports build one per section; JSON comes from the reports' `Codable` form.
public struct TextTable: Sendable, Hashable {
    /// Column titles.
    public var header: [String]
    /// Rows, each as long as the header.
    public var rows: [[String]]
    /// Columns whose cells are numbers, right-aligned in text.
    public var numericColumns: Set<Int>

    /// Creates a table.
    public init(header: [String], rows: [[String]], numericColumns: Set<Int> = []) {
        self.header = header
        self.rows = rows
        self.numericColumns = numericColumns
    }

    /// Aligned columns separated by two spaces, numbers right-aligned.
    public var text: String {
        let all = [header] + rows
        let widths = header.indices.map { column in
            all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                if numericColumns.contains(column) { return padding + cell }
                return column == row.count - 1 ? cell : cell + padding
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// RFC 4180 CSV: fields with commas, quotes or line breaks are quoted, quotes doubled.
    public var csv: String {
        ([header] + rows).map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\n")
    }

    /// A GitHub-flavoured Markdown table.
    public var markdown: String {
        let escape = { (cell: String) in cell.replacingOccurrences(of: "|", with: "\\|") }
        var lines = ["| " + header.map(escape).joined(separator: " | ") + " |"]
        lines.append(
            "|" + header.indices.map { numericColumns.contains($0) ? " ---: " : " --- " }.joined(separator: "|") + "|")
        lines += rows.map { "| " + $0.map(escape).joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }

    private static func csvField(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
