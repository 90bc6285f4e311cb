import OnboardMetricsAnalysis

/// A flow (Sankey-like) chart: one column per position of a path, a box per event there (its
/// height the units at it) and a band from each event to the next (its width the units that went
/// that way).
struct SVGFlowChart: Sendable {
    var id: String
    var title: String
    var description: String
    var nodes: [PathReport.Node]
    var transitions: [PathReport.Transition]

    func chart() -> SVGChart {
        let columnGap = 250.0
        let nodeWidth = 14.0
        let plotHeight = 300.0
        let top = 20.0
        let gap = 8.0
        var totals: [Int: [String: Int]] = [:]
        for node in nodes { totals[node.step, default: [:]][node.event, default: 0] += node.units }
        let columns = totals.keys.sorted()
        let largest = columns.map { column in (totals[column] ?? [:]).values.reduce(0, +) }.max() ?? 0
        let maxNodes = columns.map { totals[$0]?.count ?? 0 }.max() ?? 0
        let scale = largest > 0 ? (plotHeight - gap * Double(max(0, maxNodes - 1))) / Double(largest) : 0
        // Node boxes, top to bottom by units.
        var boxes: [String: (x: Double, y: Double, height: Double)] = [:]
        var nodeBody = ""
        for (offset, column) in columns.enumerated() {
            let x = 10 + Double(offset) * columnGap
            var y = top
            let nodes = (totals[column] ?? [:]).sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            for (label, units) in nodes {
                let height = max(1, Double(units) * scale)
                boxes["\(column)\u{1}\(label)"] = (x, y, height)
                nodeBody += SVGChart.rect(
                    x: x, y: y, width: nodeWidth, height: height, fill: "#2f5fb3", label: "\(label): \(units)")
                // A white halo keeps the name readable over the bands; long names are cut (the box's title has it whole).
                let name = label.count > 27 ? String(label.prefix(26)) + "…" : label
                nodeBody +=
                    "<text x=\"\(HTML.coordinate(x + nodeWidth + 4))\" y=\"\(HTML.coordinate(y + min(height, 20) / 2 + 4))\" "
                    + "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">\(HTML.escape("\(name) (\(units))"))</text>\n"
                y += height + gap
            }
        }
        // Bands under the boxes, stacked within each box in the order of the links.
        var body = ""
        var used: [String: (out: Double, in: Double)] = [:]
        for link in transitions {
            let fromKey = "\(link.step)\u{1}\(link.from)"
            let toKey = "\(link.step + 1)\u{1}\(link.to)"
            guard let from = boxes[fromKey], let to = boxes[toKey] else { continue }
            let width = max(1, Double(link.units) * scale)
            let y1 = from.y + (used[fromKey]?.out ?? 0) + width / 2
            let y2 = to.y + (used[toKey]?.in ?? 0) + width / 2
            used[fromKey, default: (0, 0)].out += width
            used[toKey, default: (0, 0)].in += width
            let x1 = from.x + nodeWidth
            let x2 = to.x
            let middle = (x1 + x2) / 2
            body +=
                "<path d=\"M\(HTML.coordinate(x1)) \(HTML.coordinate(y1)) C\(HTML.coordinate(middle)) "
                + "\(HTML.coordinate(y1)) \(HTML.coordinate(middle)) \(HTML.coordinate(y2)) \(HTML.coordinate(x2)) "
                + "\(HTML.coordinate(y2))\" fill=\"none\" stroke=\"#8aa6d8\" stroke-opacity=\"0.55\" "
                + "stroke-width=\"\(HTML.coordinate(width))\"><title>\(HTML.escape("\(link.from) → \(link.to): \(link.units)"))"
                + "</title></path>\n"
        }
        body += nodeBody
        let width = 10 + Double(max(1, columns.count)) * columnGap + 40
        return SVGChart(
            id: id, title: title, description: description, width: width, height: top + plotHeight + 20, body: body)
    }
}
