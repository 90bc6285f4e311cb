import Foundation
import OnboardMetricsPostgres

/// Saves and loads cohorts (`cohorts`, `cohort_members`; migration 0005).
public struct CohortStore: Sendable {
    /// Creates a store.
    public init() {}

    /// Saves `cohort` in one transaction: all its members or nothing.
    /// - Parameter replace: replaces a cohort of the same name; otherwise one is an error.
    /// - Throws: ``CohortError`` `.invalidName` or `.exists`; `PostgresError` for the database.
    public func save(_ cohort: Cohort, replace: Bool, on connection: PostgresConnection) throws {
        try Self.validate(cohort.name)
        let members = String(decoding: try JSONEncoder().encode(cohort.members.sorted()), as: UTF8.self)
        try connection.query("BEGIN")
        do {
            if replace { try connection.query("DELETE FROM cohorts WHERE name = $1", [.text(cohort.name)]) }
            do {
                try connection.query(
                    "INSERT INTO cohorts (name, unit, description) VALUES ($1, $2, $3)",
                    [.text(cohort.name), .text(cohort.unit.rawValue), .text(cohort.description)])
            } catch let error as PostgresError where error.sqlState == PostgresError.Code.uniqueViolationSQLState {
                throw CohortError(
                    .exists, "a cohort named \(cohort.name) exists: pass --replace to overwrite it")
            }
            try connection.query(
                "INSERT INTO cohort_members (cohort, member) SELECT $1, value FROM jsonb_array_elements_text($2::jsonb)",
                [.text(cohort.name), .text(members)])
            try connection.query("COMMIT")
        } catch {
            _ = try? connection.query("ROLLBACK")
            throw error
        }
    }

    /// The cohort named `name`, with its members.
    /// - Throws: ``CohortError`` `.unknown` (naming the cohorts there are); `PostgresError`.
    public func load(_ name: String, on connection: PostgresConnection) throws -> Cohort {
        let rows = try connection.query(
            "SELECT unit, description FROM cohorts WHERE name = $1", [.text(name)])
        guard let row = rows.first, let unit = row["unit"].string.flatMap(Cohort.Unit.init(rawValue:)) else {
            let names = try connection.query("SELECT name FROM cohorts ORDER BY name").compactMap { $0["name"].string }
            throw CohortError(
                .unknown,
                "no cohort named \(name.debugDescription)"
                    + (names.isEmpty
                        ? " (none saved yet: funnel users --save-cohort NAME saves one)"
                        : " (saved: \(names.joined(separator: ", ")))"))
        }
        let members = try connection.query(
            "SELECT member FROM cohort_members WHERE cohort = $1", [.text(name)]
        ).compactMap { $0["member"].string }
        return Cohort(name: name, unit: unit, description: row["description"].string ?? "", members: Set(members))
    }

    /// Checks a cohort name. - Throws: ``CohortError`` `.invalidName`.
    public static func validate(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "._-".unicodeScalars
                    .contains($0)
        }
        guard allowed, (1...64).contains(name.count), let first = name.unicodeScalars.first,
            !".-_".unicodeScalars.contains(first)
        else {
            throw CohortError(
                .invalidName,
                "cohort name \(name.debugDescription) must be 1-64 letters, digits, dots, dashes or underscores, "
                    + "starting with a letter or digit")
        }
    }
}
