/// Per row, a thick bar to a central value (median) over a thin bar to an upper value (p90),
/// on one linear axis from 0 — time on step and similar durations.
struct SVGRangeChart: Sendable {
    struct Row: Sendable {
        var label: String
        var middle: Double?
        var upper: Double?
        var note: String
    }

    var id: String
    var title: String
    var description: String
    var middleLabel: String
    var upperLabel: String
    var rows: [Row]
    /// Tick text for an axis value.
    var format: @Sendable (Double) -> String

    func chart() -> SVGChart {
        let labelWidth = 190.0
        let plotWidth = 560.0
        let rowHeight = 26.0
        let top = 34.0
        let maximum = rows.compactMap { $0.upper ?? $0.middle }.max() ?? 0
        let axis = SVGChart.niceAxis(maximum: maximum)
        let scale = maximum > 0 ? plotWidth / axis.end : 0
        var body = SVGChart.legend(
            [(middleLabel, "#2f5fb3"), (upperLabel, "#a9bde3")], x: labelWidth, y: 14)
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            body += SVGChart.text(SVGChart.clipped(row.label), x: labelWidth - 8, y: y + 13, anchor: "end")
            if let upper = row.upper {
                body += SVGChart.rect(
                    x: labelWidth, y: y + 5, width: upper * scale, height: 8, fill: "#a9bde3",
                    label: "\(row.label): \(upperLabel) \(format(upper))")
            }
            if let middle = row.middle {
                body += SVGChart.rect(
                    x: labelWidth, y: y + 1, width: middle * scale, height: 16, fill: "#2f5fb3",
                    label: "\(row.label): \(middleLabel) \(format(middle))")
            }
            body += SVGChart.text(row.note, x: labelWidth + plotWidth + 8, y: y + 13)
        }
        let bottom = top + Double(rows.count) * rowHeight
        body += SVGChart.line(x1: labelWidth, y1: top - 4, x2: labelWidth, y2: bottom, stroke: "#1d2330")
        body += SVGChart.line(x1: labelWidth, y1: bottom, x2: labelWidth + plotWidth, y2: bottom, stroke: "#1d2330")
        if maximum > 0 {
            for tick in 0...Int((axis.end / axis.step).rounded()) {
                let value = Double(tick) * axis.step
                let x = labelWidth + value * scale
                body += SVGChart.line(x1: x, y1: bottom, x2: x, y2: bottom + 4, stroke: "#1d2330")
                body += SVGChart.text(format(value), x: x, y: bottom + 17, anchor: "middle")
            }
        }
        return SVGChart(
            id: id, title: title, description: description, width: labelWidth + plotWidth + 210, height: bottom + 24,
            body: body)
    }
}
