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

    /// RFC 4180 CSV: fields with commas, quotes or line breaks are quoted, quotes doubled. A cell
    /// that a spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a
    /// carriage return, and is not a number) is prefixed with `'` and quoted, as OWASP's CSV
    /// injection advice says: ids and properties come from apps, and a CSV is opened in Excel.
    public var csv: String {
        ([header] + rows).map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\n")
    }

    /// A GitHub-flavoured Markdown table. Cells are text, never markup: HTML's `&`, `<` and `>`
    /// become entities, the characters Markdown acts on inside a cell are escaped, and a line break
    /// becomes `<br>`, so that event data neither breaks the row nor renders as HTML or a link.
    public var markdown: String {
        let escape = Self.markdownCell
        var lines = ["| " + header.map(escape).joined(separator: " | ") + " |"]
        lines.append(
            "|" + header.indices.map { numericColumns.contains($0) ? " ---: " : " --- " }.joined(separator: "|") + "|")
        lines += rows.map { "| " + $0.map(escape).joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }

    static func csvField(_ cell: String) -> String {
        if Self.runsAsFormula(cell) {
            return "\"'" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Whether a spreadsheet would take the cell for a formula. Negative numbers (`-3`, `-0.5`,
    /// `-12.5 %`) are the reports' own figures and stay as they are.
    private static func runsAsFormula(_ cell: String) -> Bool {
        guard let first = cell.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return false }
        if first == "-" {
            let rest = cell.unicodeScalars.dropFirst()
            let numeric = rest.first.map { ("0"..."9").contains($0) } ?? false
            if numeric, rest.allSatisfy({ ("0"..."9").contains($0) || ".,% ".unicodeScalars.contains($0) }) {
                return false
            }
        }
        return true
    }

    static func markdownCell(_ cell: String) -> String {
        var out = ""
        out.reserveCapacity(cell.utf8.count)
        var previousWasCR = false
        for character in cell.unicodeScalars {
            defer { previousWasCR = character == "\r" }
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "|", "`", "*", "_", "[", "]": out += "\\" + String(character)
            case "\n" where previousWasCR: continue
            case "\n", "\r": out += "<br>"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
