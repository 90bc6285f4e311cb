import OnboardMetricsAnalysis

/// Rates over time on a 0–100 % axis: per series a line through its points and a shaded band
/// between each point's lower and upper bound (a confidence interval). Points marked provisional
/// are drawn hollow and the line into them dashed.
struct SVGLineChart: Sendable {
    struct Point: Sendable {
        var value: Double
        var lower: Double?
        var upper: Double?
        /// Drawn hollow (e.g. a period mostly in progress).
        var provisional: Bool
        var note: String
    }

    struct Series: Sendable {
        var label: String
        var color: String
        /// One per x label; `nil` where there is no value.
        var points: [Point?]
    }

    var id: String
    var title: String
    var description: String
    /// The x axis labels, in order.
    var labels: [String]
    var series: [Series]

    static let palette = ["#2f5fb3", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#117a8b", "#6c3483", "#7b7d7d"]

    func chart() -> SVGChart {
        let left = 56.0
        let plotWidth = 680.0
        let top = 34.0
        let plotHeight = 240.0
        let bottom = top + plotHeight
        let largest = series.flatMap { $0.points.compactMap { $0.map { $0.upper ?? $0.value } } }.max() ?? 0
        let axisEnd = min(1, max(0.1, (largest * 10).rounded(.up) / 10))
        let step = labels.count > 1 ? plotWidth / Double(labels.count - 1) : 0
        let x = { (index: Int) in left + (labels.count > 1 ? Double(index) * step : plotWidth / 2) }
        let y = { (value: Double) in bottom - min(axisEnd, max(0, value)) / axisEnd * plotHeight }
        var body = SVGChart.legend(series.map { ($0.label, $0.color) }, x: left, y: 14)
        for tick in 0...Int((axisEnd * 10).rounded()) {
            let value = Double(tick) / 10
            body += SVGChart.line(x1: left, y1: y(value), x2: left + plotWidth, y2: y(value), stroke: "#e3e6ea")
            body += SVGChart.text("\(tick * 10)%", x: left - 6, y: y(value) + 4, anchor: "end")
        }
        // At most about 12 x labels, so dates do not overlap.
        let every = max(1, Int((Double(labels.count) / 12).rounded(.up)))
        for (index, label) in labels.enumerated() where index % every == 0 || index == labels.count - 1 {
            body += SVGChart.text(label, x: x(index), y: bottom + 16, anchor: "middle")
        }
        for line in series {
            // Bands: one polygon per run of points that have bounds.
            var run: [(Int, Double, Double)] = []
            func flush() {
                guard run.count > 1 else {
                    if let only = run.first {
                        body += SVGChart.line(
                            x1: x(only.0), y1: y(only.1), x2: x(only.0), y2: y(only.2), stroke: line.color, width: 6)
                    }
                    run = []
                    return
                }
                let upper = run.map { "\(HTML.coordinate(x($0.0))),\(HTML.coordinate(y($0.2)))" }
                let lower = run.reversed().map { "\(HTML.coordinate(x($0.0))),\(HTML.coordinate(y($0.1)))" }
                body +=
                    "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(line.color)\" "
                    + "fill-opacity=\"0.15\" stroke=\"none\"/>\n"
                run = []
            }
            for (index, point) in line.points.enumerated() {
                if let point, let lower = point.lower, let upper = point.upper {
                    run.append((index, lower, upper))
                } else {
                    flush()
                }
            }
            flush()
            var previous: (Int, Point)?
            for (index, point) in line.points.enumerated() {
                guard let point else {
                    previous = nil
                    continue
                }
                if let (before, last) = previous {
                    let dash = point.provisional || last.provisional ? " stroke-dasharray=\"5 4\"" : ""
                    body +=
                        "<line x1=\"\(HTML.coordinate(x(before)))\" y1=\"\(HTML.coordinate(y(last.value)))\" "
                        + "x2=\"\(HTML.coordinate(x(index)))\" y2=\"\(HTML.coordinate(y(point.value)))\" "
                        + "stroke=\"\(line.color)\" stroke-width=\"2\"\(dash)/>\n"
                }
                previous = (index, point)
            }
            for (index, point) in line.points.enumerated() {
                guard let point else { continue }
                var label = "\(line.label) \(labels[index]): \(NumberText.percent(point.value))"
                if let lower = point.lower, let upper = point.upper {
                    label += " (\(NumberText.percent(lower)) – \(NumberText.percent(upper)))"
                }
                if !point.note.isEmpty { label += ", \(point.note)" }
                let fill = point.provisional ? "#ffffff" : line.color
                body +=
                    "<circle cx=\"\(HTML.coordinate(x(index)))\" cy=\"\(HTML.coordinate(y(point.value)))\" r=\"4\" "
                    + "fill=\"\(fill)\" stroke=\"\(line.color)\" stroke-width=\"2\"><title>\(HTML.escape(label))</title>"
                    + "</circle>\n"
            }
        }
        body += SVGChart.line(x1: left, y1: bottom, x2: left + plotWidth, y2: bottom, stroke: "#1d2330")
        return SVGChart(
            id: id, title: title, description: description, width: left + plotWidth + 40, height: bottom + 28,
            body: body)
    }
}
