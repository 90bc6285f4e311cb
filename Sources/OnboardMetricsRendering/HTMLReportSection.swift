/// One section of an HTML report: a heading and a body of charts and tables.
///
/// The reports conform in their `+HTML` extensions; this is the extension point for sections
/// added later (experiments, forecasts): conform a report type and pass it to ``HTMLDocument``.
public protocol HTMLReportSection: Sendable {
    /// A document-unique fragment id (letters, digits, '-'), used for the table of contents.
    var htmlSectionID: String { get }
    /// The section's heading (plain text; it is escaped).
    var htmlSectionTitle: String { get }
    /// The section's content: escaped HTML with inline SVG, no external references.
    func htmlSectionBody() -> String
}
