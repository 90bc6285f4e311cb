import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Flow definitions in PostgreSQL (table `flows` of migrations/0001_event_schema.sql), so that
/// reports find a flow by its id. Every value travels as a parameter.
public struct FlowStore: Sendable {
    /// Creates a store.
    public init() {}

    /// Stores `flow` unless its id and version are stored already: a stored version is never
    /// replaced (reports of old data keep reading the definition they were recorded with).
    /// - Throws: `PostgresError` (`.invalidValue` for a version outside the table's 32 bits).
    public func save(_ flow: FlowDefinition, on connection: PostgresConnection) throws {
        guard let version = Int32(exactly: flow.version) else {
            throw PostgresError(
                .invalidValue, "flow '\(flow.id)': version \(flow.version) does not fit the flows table")
        }
        try connection.query(
            "INSERT INTO flows (flow_id, version, definition) VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING",
            [.text(flow.id), .int32(version), .jsonb(String(decoding: try flow.jsonData(), as: UTF8.self))])
    }

    /// The newest stored version of every flow, in id order.
    /// - Throws: `FlowError` for a stored definition that does not decode, `PostgresError`.
    public func latest(on connection: PostgresConnection) throws -> [FlowDefinition] {
        try connection.query(
            """
            SELECT DISTINCT ON (flow_id) flow_id, definition::text AS definition FROM flows
            ORDER BY flow_id, version DESC
            """
        ).compactMap { $0["definition"].string }.map { try FlowDefinition.decode(from: Data($0.utf8)) }
    }
}
