/// The formats a report prints in.
public enum ReportFormat: String, Sendable, CaseIterable, Codable {
    case text, json, csv, markdown
}
