/// Renders rows as an aligned text table, CSV or a Markdown table.
enum TextTable {
    static func text(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func csv(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\n")
    }

    static func markdown(header: [String], rows: [[String]]) -> String {
        let escape = { (cell: String) in cell.replacingOccurrences(of: "|", with: "\\|") }
        var lines = ["| " + header.map(escape).joined(separator: " | ") + " |"]
        lines.append("|" + header.map { _ in " --- " }.joined(separator: "|") + "|")
        lines += rows.map { "| " + $0.map(escape).joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }

    private static func csvField(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
