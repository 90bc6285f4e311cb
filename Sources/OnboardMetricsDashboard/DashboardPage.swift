import Foundation
import OnboardMetricsRendering

/// One section of a dashboard page that is not a report (the flow list, the filters, the sign-in
/// form): a heading and HTML built here, every piece of data escaped.
struct DashboardPage: HTMLReportSection {
    var htmlSectionID: String
    var htmlSectionTitle: String
    var body: String

    func htmlSectionBody() -> String { body }

    /// A whole page: the renderers' document (viewport, inline CSS, no scripts or external
    /// assets), with "as of" and the data's newest event under the heading.
    static func document(
        title: String, asOf: Date, newestEvent: Date?, sections: [any HTMLReportSection], signedIn: Bool = true
    ) -> String {
        let formatter = ISO8601DateFormatter()
        let subtitle =
            "As of \(formatter.string(from: asOf)); newest event "
            + (newestEvent.map(formatter.string(from:)) ?? "none yet") + "."
        var all = sections
        if signedIn { all.append(navigation) }
        return HTMLDocument(title: title, subtitle: subtitle, sections: all, generatedAt: asOf).render()
    }

    /// Home, and signing out (a form: a POST, which a link cannot forge with SameSite=Strict).
    static let navigation = DashboardPage(
        htmlSectionID: "dashboard", htmlSectionTitle: "Dashboard",
        body: """
            <p><a href="/">All flows and experiments</a></p>
            <form method="post" action="/logout"><button type="submit">Sign out</button></form>

            """)

    /// A link to `path` with `query` (already encoded), escaped for an attribute.
    static func link(_ path: String, query: String = "", text: String) -> String {
        let href = path + (query.isEmpty ? "" : "?" + query)
        return "<a href=\"\(HTML.escape(href))\">\(HTML.escape(text))</a>"
    }

    /// `/flows/ID` with the id percent-encoded as one path segment.
    static func path(_ base: String, _ id: String) -> String {
        base + "/" + (id.addingPercentEncoding(withAllowedCharacters: segment) ?? "")
    }

    private static let segment = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
