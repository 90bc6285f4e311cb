import OnboardMetricsAnalysis

/// Rates with confidence-interval whiskers on a 0–100 % axis: per row, one point per series
/// (e.g. the discovery rate and the organic baseline), each with its interval.
struct SVGIntervalChart: Sendable {
    struct Series: Sendable {
        var label: String
        var color: String
    }

    struct Point: Sendable {
        var value: Double
        var lower: Double?
        var upper: Double?
    }

    struct Row: Sendable {
        var label: String
        /// One per series; `nil` where there is no value.
        var points: [Point?]
        var note: String
    }

    var id: String
    var title: String
    var description: String
    var series: [Series]
    var rows: [Row]

    func chart() -> SVGChart {
        let labelWidth = 190.0
        let plotWidth = 560.0
        let band = 18.0
        let rowHeight = max(34, band * Double(series.count) + 12)
        let top = 34.0
        // The axis ends at the next 10 % above the largest upper bound, so small rates stay readable.
        let largest = rows.flatMap { $0.points.compactMap { $0.map { $0.upper ?? $0.value } } }.max() ?? 0
        let axisEnd = min(1, max(0.1, (largest * 10).rounded(.up) / 10))
        let scale = plotWidth / axisEnd
        var body = SVGChart.legend(series.map { ($0.label, $0.color) }, x: labelWidth, y: 14)
        let bottom = top + Double(rows.count) * rowHeight
        for tick in 0...Int((axisEnd * 10).rounded()) {
            let value = Double(tick) / 10
            let x = labelWidth + value * scale
            body += SVGChart.line(x1: x, y1: top - 4, x2: x, y2: bottom, stroke: "#e3e6ea")
            body += SVGChart.text("\(tick * 10)%", x: x, y: bottom + 16, anchor: "middle")
        }
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            body += SVGChart.text(SVGChart.clipped(row.label), x: labelWidth - 8, y: y + rowHeight / 2, anchor: "end")
            for (position, point) in row.points.enumerated() where position < series.count {
                guard let point else { continue }
                let color = series[position].color
                let center = y + 8 + Double(position) * band
                if let lower = point.lower, let upper = point.upper {
                    let x1 = labelWidth + max(0, lower) * scale
                    let x2 = labelWidth + min(axisEnd, upper) * scale
                    body += SVGChart.line(x1: x1, y1: center, x2: x2, y2: center, stroke: color, width: 2)
                    body += SVGChart.line(x1: x1, y1: center - 5, x2: x1, y2: center + 5, stroke: color, width: 2)
                    body += SVGChart.line(x1: x2, y1: center - 5, x2: x2, y2: center + 5, stroke: color, width: 2)
                }
                let x = labelWidth + min(axisEnd, max(0, point.value)) * scale
                var label = "\(row.label): \(series[position].label) \(NumberText.percent(point.value))"
                if let lower = point.lower, let upper = point.upper {
                    label += " (\(NumberText.percent(lower)) – \(NumberText.percent(upper)))"
                }
                body +=
                    "<circle cx=\"\(HTML.coordinate(x))\" cy=\"\(HTML.coordinate(center))\" r=\"5\" fill=\"\(color)\">"
                    + "<title>\(HTML.escape(label))</title></circle>\n"
            }
            body += SVGChart.text(row.note, x: labelWidth + plotWidth + 8, y: y + rowHeight / 2)
        }
        body += SVGChart.line(x1: labelWidth, y1: bottom, x2: labelWidth + plotWidth, y2: bottom, stroke: "#1d2330")
        return SVGChart(
            id: id, title: title, description: description, width: labelWidth + plotWidth + 210, height: bottom + 24,
            body: body)
    }
}
