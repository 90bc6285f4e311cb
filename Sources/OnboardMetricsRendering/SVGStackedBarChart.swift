import OnboardMetricsAnalysis

/// Horizontal bars split into shares (e.g. completed / skipped / dropped / not reached per step),
/// one bar per row, each bar the full width = 100 % of its row's base.
struct SVGStackedBarChart: Sendable {
    /// One kind of share, with its color.
    struct Series: Sendable {
        var label: String
        var color: String
    }

    /// One bar: its label, a share per series (0...1, summing to at most 1) and a note at its end.
    struct Bar: Sendable {
        var label: String
        var shares: [Double]
        var note: String
    }

    var id: String
    var title: String
    var description: String
    var series: [Series]
    var bars: [Bar]

    func chart() -> SVGChart {
        let labelWidth = 190.0
        let barWidth = 560.0
        let rowHeight = 30.0
        let top = 34.0
        let width = labelWidth + barWidth + 210
        var body = SVGChart.legend(series.map { ($0.label, $0.color) }, x: labelWidth, y: 14)
        for (index, bar) in bars.enumerated() {
            let y = top + Double(index) * rowHeight
            body += SVGChart.text(SVGChart.clipped(bar.label), x: labelWidth - 8, y: y + 15, anchor: "end")
            var x = labelWidth
            for (position, share) in bar.shares.enumerated() where position < series.count {
                let clamped = min(1, max(0, share))
                let segment = clamped * barWidth
                body += SVGChart.rect(
                    x: x, y: y, width: segment, height: rowHeight - 8, fill: series[position].color,
                    label: "\(bar.label): \(series[position].label) \(NumberText.percent(share))")
                x += segment
            }
            body += SVGChart.rect(x: x, y: y, width: labelWidth + barWidth - x, height: rowHeight - 8, fill: "#eef0f3")
            body += SVGChart.text(bar.note, x: labelWidth + barWidth + 8, y: y + 15)
        }
        let height = top + Double(bars.count) * rowHeight + 4
        body += SVGChart.line(x1: labelWidth, y1: top - 4, x2: labelWidth, y2: height - 4, stroke: "#1d2330")
        return SVGChart(id: id, title: title, description: description, width: width, height: height, body: body)
    }
}
