import Foundation

/// The frame of an inline SVG chart: `role="img"` with a `<title>` and `<desc>` that screen
/// readers announce, and a `<figure>` holding the chart and its fallback data table.
struct SVGChart: Sendable {
    /// Unique in the document; the title and description ids derive from it.
    var id: String
    var title: String
    /// What the chart shows, in words (read by screen readers instead of the drawing).
    var description: String
    var width: Double
    var height: Double
    /// The drawing: SVG elements, text already escaped.
    var body: String

    /// The `<svg>` element.
    func svg() -> String {
        let id = HTML.escape(self.id)
        return """
            <svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(HTML.coordinate(width)) \
            \(HTML.coordinate(height))" role="img" aria-labelledby="\(id)-title \(id)-desc" data-chart="\(id)">
            <title id="\(id)-title">\(HTML.escape(title))</title>
            <desc id="\(id)-desc">\(HTML.escape(description))</desc>
            \(body)</svg>

            """
    }

    /// The chart in a figure with a caption, followed by its data as a table that is visually
    /// hidden but read by screen readers (the visible tables elsewhere hold the same figures).
    func figure(fallback: HTMLTable) -> String {
        var table = fallback
        table.className = "sr-only"
        return "<figure>\n<figcaption>\(HTML.escape(title))</figcaption>\n" + svg() + table.render() + "</figure>\n"
    }

    /// A text element; `anchor` is start, middle or end.
    static func text(
        _ content: String, x: Double, y: Double, anchor: String = "start", className: String? = nil,
        weight: String? = nil
    ) -> String {
        var attributes = "x=\"\(HTML.coordinate(x))\" y=\"\(HTML.coordinate(y))\""
        if anchor != "start" { attributes += " text-anchor=\"\(anchor)\"" }
        if let className { attributes += " class=\"\(className)\"" }
        if let weight { attributes += " font-weight=\"\(weight)\"" }
        return "<text \(attributes)>\(HTML.escape(content))</text>\n"
    }

    /// A filled rectangle.
    static func rect(x: Double, y: Double, width: Double, height: Double, fill: String, label: String? = nil)
        -> String
    {
        let tooltip = label.map { "<title>\(HTML.escape($0))</title>" } ?? ""
        return
            "<rect x=\"\(HTML.coordinate(x))\" y=\"\(HTML.coordinate(y))\" width=\"\(HTML.coordinate(max(0, width)))\" "
            + "height=\"\(HTML.coordinate(max(0, height)))\" fill=\"\(fill)\">\(tooltip)</rect>\n"
    }

    /// A straight line.
    static func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1) -> String {
        "<line x1=\"\(HTML.coordinate(x1))\" y1=\"\(HTML.coordinate(y1))\" x2=\"\(HTML.coordinate(x2))\" "
            + "y2=\"\(HTML.coordinate(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(HTML.coordinate(width))\"/>\n"
    }

    /// A legend: colored squares and labels in one row from `x`.
    static func legend(_ entries: [(label: String, color: String)], x: Double, y: Double) -> String {
        var body = ""
        var position = x
        for entry in entries {
            body += rect(x: position, y: y - 10, width: 12, height: 12, fill: entry.color)
            body += text(entry.label, x: position + 17, y: y)
            // Roughly 6.5 px per character at 12 px: enough room without measuring text.
            position += 17 + Double(entry.label.count) * 6.5 + 22
        }
        return body
    }

    /// A value axis from 0 that ends on a round tick at or above `maximum`: steps of 1, 2 or 5
    /// times a power of ten, at most `ticks` of them (so labels read 0, 20, 40, 60, not 0, 9.3, 18.6).
    static func niceAxis(maximum: Double, ticks: Int = 5) -> (end: Double, step: Double) {
        guard maximum > 0, maximum.isFinite else { return (1, 1) }
        let rough = maximum / Double(ticks)
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        return ((maximum / step).rounded(.up) * step, step)
    }

    /// A label shortened to `limit` characters, so long step ids do not run into the bars.
    static func clipped(_ label: String, limit: Int = 28) -> String {
        label.count <= limit ? label : String(label.prefix(limit - 1)) + "…"
    }
}
