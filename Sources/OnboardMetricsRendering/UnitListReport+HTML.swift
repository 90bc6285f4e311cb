import OnboardMetricsAnalysis

extension UnitListReport: HTMLReportSection {
    /// `units-<flow id>`.
    public var htmlSectionID: String { "units-" + HTML.identifier(flowID) }

    /// "Units of <flow>".
    public var htmlSectionTitle: String { "\(unit.rawValue.capitalized)s of \(flowID)" }

    /// The list as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// The table of units, keyed by session id.
    public func htmlSectionBody() -> String {
        let table = self.table
        return "<p class=\"note\">\(HTML.escape(title)).</p>\n<div class=\"table-wrap\">"
            + HTMLTable(
                caption: title, header: table.header,
                rows: zip(rows, table.rows).map { row, cells in
                    HTMLTable.Row(
                        key: row.sessionID.uuidString.lowercased(),
                        cells: cells.enumerated().map { index, text in
                            index == 2 ? .count(row.sessions) : HTMLTable.Cell(text)
                        })
                }, numericColumns: [2], name: "units"
            ).render() + "</div>\n"
    }
}
