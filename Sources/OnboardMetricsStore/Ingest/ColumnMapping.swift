/// Which CSV column holds which event field, for generic clickstream exports.
///
/// Written on the command line as `--map FIELD=COLUMN`, e.g. `--map user_id=uid --map event=action`.
/// `user_id`, `session_id`, `event` and `occurred_at` are required; `step`, `flow_id` and `name`
/// are optional. Columns not mapped become string properties of the event.
public struct ColumnMapping: Sendable, Hashable {
    /// An event field a column can be mapped to.
    public enum Field: String, Sendable, CaseIterable, Hashable {
        /// The user.
        case userID = "user_id"
        /// The session: a UUID, or any text (then a stable UUID is derived from it).
        case sessionID = "session_id"
        /// The event: a kind of the vocabulary (`step_viewed`, ...), or any other name for a `custom` event.
        case event
        /// When it happened.
        case occurredAt = "occurred_at"
        /// The step, for step events.
        case step
        /// The flow.
        case flowID = "flow_id"
        /// The event's name (highlight, feature or experiment) for events of the vocabulary.
        case name

        /// Whether every mapping must name a column for this field.
        public var isRequired: Bool {
            switch self {
            case .userID, .sessionID, .event, .occurredAt: true
            case .step, .flowID, .name: false
            }
        }
    }

    /// The column name for each mapped field.
    public var columns: [Field: String]

    /// Creates a mapping from field to column name.
    /// - Throws: ``IngestError`` `.mapping` when a required field is not mapped.
    public init(columns: [Field: String]) throws {
        let missing = Field.allCases.filter { $0.isRequired && columns[$0] == nil }
        guard missing.isEmpty else {
            throw IngestError(
                .mapping,
                "the CSV mapping lacks \(missing.map { "--map \($0.rawValue)=COLUMN" }.joined(separator: ", "))")
        }
        self.columns = columns
    }

    /// Creates a mapping from `FIELD=COLUMN` specifications.
    /// - Throws: ``IngestError`` `.mapping` for a malformed specification, an unknown or repeated
    ///   field, or a required field left out.
    public init(specifications: [String]) throws {
        var columns: [Field: String] = [:]
        for specification in specifications {
            guard let equals = specification.firstIndex(of: "=") else {
                throw IngestError(.mapping, "--map \(specification): expected FIELD=COLUMN")
            }
            let name = String(specification[..<equals])
            let column = String(specification[specification.index(after: equals)...])
            guard let field = Field(rawValue: name) else {
                throw IngestError(
                    .mapping,
                    "--map \(specification): unknown field '\(name)'; fields are "
                        + Field.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard !column.isEmpty else {
                throw IngestError(.mapping, "--map \(specification): the column name is empty")
            }
            guard columns[field] == nil else { throw IngestError(.mapping, "--map \(name)=... is given twice") }
            columns[field] = column
        }
        try self.init(columns: columns)
    }

    /// The column index of each mapped field in a file with `header`.
    /// - Throws: ``IngestError`` `.mapping` naming a column the header lacks.
    package func indices(in header: [String]) throws -> [Field: Int] {
        var indices: [Field: Int] = [:]
        for (field, column) in columns {
            guard let index = header.firstIndex(of: column) else {
                throw IngestError(
                    .mapping,
                    "--map \(field.rawValue)=\(column): no such column; the header has "
                        + header.map { "'\($0)'" }.joined(separator: ", "))
            }
            indices[field] = index
        }
        return indices
    }
}
