import Foundation
import OnboardMetricsRendering

/// A small inline SVG line of daily counts (oldest first), for a table cell: no axes, the last
/// day marked, the numbers in its title and label for screen readers and tooltips.
struct DashboardSparkline {
    var values: [Int]
    var label: String

    static let width = 120.0
    static let height = 28.0

    func render() -> String {
        let top = Double(max(values.max() ?? 0, 1))
        let step = values.count > 1 ? Self.width / Double(values.count - 1) : 0
        let points = values.enumerated().map { index, value in
            let x = Double(index) * step
            let y = 2 + (Self.height - 4) * (1 - Double(value) / top)
            return (x, y)
        }
        let line = points.map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
        let total = values.reduce(0, +)
        let text = "\(label): \(total) started over \(values.count) days, \(values.last ?? 0) today"
        var svg =
            "<svg class=\"sparkline\" width=\"\(Int(Self.width))\" height=\"\(Int(Self.height))\" "
            + "viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"\(HTML.escape(text))\">"
            + "<title>\(HTML.escape(text))</title>"
        if !points.isEmpty {
            svg += "<polyline points=\"\(line)\" fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"1.5\"/>"
            if let last = points.last {
                svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#2b6cb0\"/>", last.0, last.1)
            }
        }
        return svg + "</svg>"
    }
}
