import OnboardMetricsAnalysis

/// An HTML table whose cells carry, besides the text shown, the exact number in `data-value`
/// and whose rows carry a `data-key` — so a reader (or a test) can match cells to the JSON report.
package struct HTMLTable: Sendable {
    /// One cell: the text shown and, for numbers, the exact value.
    package struct Cell: Sendable {
        package var text: String
        package var value: String?

        package init(_ text: String, value: String? = nil) {
            self.text = text
            self.value = value
        }

        /// A count, shown and stored as is.
        package static func count(_ value: Int) -> Cell { Cell(String(value), value: String(value)) }

        /// A share, shown as a percentage; the stored value is the fraction.
        package static func percent(_ value: Double?) -> Cell {
            Cell(NumberText.percent(value), value: HTML.exact(value))
        }

        /// Seconds, shown short (12.3s, 4.5m); the stored value is seconds.
        package static func seconds(_ value: Double?) -> Cell {
            Cell(NumberText.seconds(value), value: HTML.exact(value))
        }
    }

    /// One row, with an optional key (a step id, a highlight id) in `data-key`.
    package struct Row: Sendable {
        package var key: String?
        package var cells: [Cell]

        package init(key: String?, cells: [Cell]) {
            self.key = key
            self.cells = cells
        }
    }

    package var caption: String
    package var header: [String]
    package var rows: [Row]
    package var numericColumns: Set<Int> = []
    /// Extra CSS class (e.g. `sr-only` for a chart's fallback).
    package var className: String?
    /// `data-table` attribute: names the table for readers and tests.
    package var name: String?

    package init(
        caption: String, header: [String], rows: [Row], numericColumns: Set<Int> = [], className: String? = nil,
        name: String? = nil
    ) {
        self.caption = caption
        self.header = header
        self.rows = rows
        self.numericColumns = numericColumns
        self.className = className
        self.name = name
    }

    package func render() -> String {
        var html = "<table"
        // More than ten columns: set tighter (HTMLDocument's `table.wide`) so it fits the page.
        let classes = [className, header.count > 10 ? "wide" : nil].compactMap { $0 }
        if !classes.isEmpty { html += " class=\"\(HTML.escape(classes.joined(separator: " ")))\"" }
        if let name { html += " data-table=\"\(HTML.escape(name))\"" }
        html += "><caption>\(HTML.escape(caption))</caption>\n<thead><tr>"
        for (column, title) in header.enumerated() {
            html +=
                "<th scope=\"col\"\(numericColumns.contains(column) ? " class=\"num\"" : "")>\(HTML.escape(title))</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for row in rows {
            html += row.key.map { "<tr data-key=\"\(HTML.escape($0))\">" } ?? "<tr>"
            for (column, cell) in row.cells.enumerated() {
                // The first column names the row: a row header for screen readers.
                let tag = column == 0 ? "th scope=\"row\"" : "td"
                let close = column == 0 ? "th" : "td"
                var attributes = numericColumns.contains(column) ? " class=\"num\"" : ""
                if let value = cell.value { attributes += " data-value=\"\(HTML.escape(value))\"" }
                html += "<\(tag)\(attributes)>\(HTML.escape(cell.text))</\(close)>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }
}
