/// Vertical columns of counts with a label under each (a histogram).
struct SVGColumnChart: Sendable {
    struct Column: Sendable {
        var label: String
        var value: Int
    }

    var id: String
    var title: String
    var description: String
    var columns: [Column]
    var color = "#2f5fb3"

    func chart() -> SVGChart {
        let left = 60.0
        let plotHeight = 180.0
        let top = 16.0
        let columnWidth = 64.0
        let maximum = Double(columns.map(\.value).max() ?? 0)
        let scale = maximum > 0 ? plotHeight / maximum : 0
        let bottom = top + plotHeight
        var body = ""
        for (index, column) in columns.enumerated() {
            let x = left + Double(index) * columnWidth
            let height = Double(column.value) * scale
            body += SVGChart.rect(
                x: x + 6, y: bottom - height, width: columnWidth - 12, height: height, fill: color,
                label: "\(column.label): \(column.value)")
            body += SVGChart.text(
                String(column.value), x: x + columnWidth / 2, y: bottom - height - 4, anchor: "middle")
            body += SVGChart.text(column.label, x: x + columnWidth / 2, y: bottom + 16, anchor: "middle")
        }
        let right = left + Double(columns.count) * columnWidth
        body += SVGChart.line(x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#1d2330")
        return SVGChart(
            id: id, title: title, description: description, width: right + 20, height: bottom + 26, body: body)
    }
}
