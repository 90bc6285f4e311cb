import OnboardMetricsAnalysis

extension PathReport: HTMLReportSection {
    /// `paths-<flow id>`.
    public var htmlSectionID: String { "paths-" + HTML.identifier(flowID) }

    /// "Paths after dropping out" or "Paths between A and B".
    public var htmlSectionTitle: String {
        mode == "between"
            ? "Paths between \(between?.first ?? "") and \(between?.last ?? "")" : "Paths after dropping out"
    }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// The flow chart of the transitions, then the table of the most common paths.
    public func htmlSectionBody() -> String {
        var html = "<p class=\"note\">\(HTML.escape(title)). \(HTML.escape(footnote))</p>\n"
        guard units > 0 else { return html + "<p>No unit to follow in the data read.</p>\n" }
        guard nodes.count > 1 else {
            return html + "<p>Every path is the same single event: nothing to draw.</p>\n"
                + "<div class=\"table-wrap\">" + pathTable().render() + "</div>\n"
        }
        let chart = SVGFlowChart(
            id: htmlSectionID + "-flow", title: htmlSectionTitle + ", event by event",
            description: "One column per position in the path; a box per event (its height the \(unit.rawValue)s "
                + "there) and a band from each event to the next (its width the \(unit.rawValue)s that went that way).",
            nodes: nodes, transitions: transitions)
        let fallback = HTMLTable(
            caption: chart.title, header: ["position", "from", "to", "units"],
            rows: transitions.map {
                HTMLTable.Row(
                    key: "\($0.step)/\($0.from)/\($0.to)",
                    cells: [.count($0.step), HTMLTable.Cell($0.from), HTMLTable.Cell($0.to), .count($0.units)])
            }, numericColumns: [0, 3], className: "sr-only")
        html += chart.chart().figure(fallback: fallback)
        html += "<div class=\"table-wrap\">" + pathTable().render() + "</div>\n"
        return html
    }

    private func pathTable() -> HTMLTable {
        let table = self.table
        return HTMLTable(
            caption: "Most common paths", header: table.header,
            rows: paths.enumerated().map { index, path in
                HTMLTable.Row(
                    key: path.events.joined(separator: " > "),
                    cells: [.count(index + 1), .count(path.units), .percent(path.share)]
                        + table.rows[index].dropFirst(3).map { HTMLTable.Cell($0) })
            }, numericColumns: [0, 1, 2], name: "paths")
    }
}
