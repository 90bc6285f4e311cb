import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Experiments and their assignments in PostgreSQL (tables `experiments` and `assignments` of
/// migrations/0001_event_schema.sql). Every value travels as a parameter.
///
/// Assignments are deterministic, so storing them is not needed to assign again; they are kept as
/// the record of who was enrolled when, and as a check that a changed definition (weights,
/// coverage, seed) has not moved units between variants mid-experiment.
public struct ExperimentStore: Sendable {
    /// Creates a store.
    public init() {}

    /// Inserts the experiment, or replaces the stored definition with the same key.
    /// - Throws: ``ExperimentError`` for an invalid definition, `PostgresError`.
    public func save(_ experiment: ExperimentDefinition, on connection: PostgresConnection) throws {
        try experiment.validate()
        try connection.query(
            """
            INSERT INTO experiments (key, seed, hash_version, coverage, variants) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (key) DO UPDATE SET seed = EXCLUDED.seed, hash_version = EXCLUDED.hash_version,
                coverage = EXCLUDED.coverage, variants = EXCLUDED.variants
            """,
            [
                .text(experiment.key), .text(experiment.seed), .int32(Int32(experiment.hashVersion)),
                .float64(experiment.coverage), .jsonb(try Self.variantsJSON(experiment.variants)),
            ])
    }

    /// The stored experiment with `key`, `nil` when there is none.
    /// - Throws: ``ExperimentError`` `.invalidStoredExperiment` for a row that does not decode, `PostgresError`.
    public func load(key: String, on connection: PostgresConnection) throws -> ExperimentDefinition? {
        let rows = try connection.query(
            "SELECT key, seed, hash_version, coverage, variants::text AS variants FROM experiments WHERE key = $1",
            [.text(key)])
        return try rows.first.map(Self.decode)
    }

    /// Every stored experiment, by key.
    /// - Throws: ``ExperimentError`` `.invalidStoredExperiment`, `PostgresError`.
    public func loadAll(on connection: PostgresConnection) throws -> [ExperimentDefinition] {
        try connection.query(
            "SELECT key, seed, hash_version, coverage, variants::text AS variants FROM experiments ORDER BY key"
        ).map(Self.decode)
    }

    /// Assigns `unit` and records the assignment unless one is already stored; returns the
    /// stored outcome (the first one recorded wins, so a unit keeps its variant). `nil` when the
    /// unit is not enrolled (nothing is recorded then).
    /// - Throws: `PostgresError` (e.g. a foreign-key violation when the experiment is not stored).
    @discardableResult
    public func assign(_ unit: String, in experiment: ExperimentDefinition, on connection: PostgresConnection) throws
        -> String?
    {
        let outcome = experiment.assign(unit)
        guard let variant = outcome.variant else { return nil }
        let rows = try connection.query(
            """
            WITH inserted AS (
                INSERT INTO assignments (experiment_key, unit_id, variant, hash_value) VALUES ($1, $2, $3, $4)
                ON CONFLICT (experiment_key, unit_id) DO NOTHING RETURNING variant
            )
            SELECT variant FROM inserted
            UNION ALL SELECT variant FROM assignments WHERE experiment_key = $1 AND unit_id = $2
            LIMIT 1
            """,
            [.text(experiment.key), .text(unit), .text(variant), .float64(outcome.hashValue)])
        return rows.first?["variant"].string ?? variant
    }

    /// The stored assignments of an experiment: unit id → variant.
    /// - Throws: `PostgresError`.
    public func assignments(key: String, on connection: PostgresConnection) throws -> [String: String] {
        let rows = try connection.query(
            "SELECT unit_id, variant FROM assignments WHERE experiment_key = $1", [.text(key)])
        var result: [String: String] = [:]
        for row in rows {
            if let unit = row["unit_id"].string, let variant = row["variant"].string { result[unit] = variant }
        }
        return result
    }

    static func variantsJSON(_ variants: [ExperimentDefinition.Variant]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(variants), as: UTF8.self)
    }

    static func decode(_ row: PostgresRow) throws -> ExperimentDefinition {
        let key = row["key"].string ?? ""
        guard let seed = row["seed"].string, let version = row["hash_version"].int,
            let coverage = row["coverage"].double, let text = row["variants"].string,
            let variants = try? JSONDecoder().decode([ExperimentDefinition.Variant].self, from: Data(text.utf8))
        else {
            throw ExperimentError(
                .invalidStoredExperiment,
                "stored experiment '\(key)' cannot be read: variants must be [{\"name\": ..., \"weight\": ...}]")
        }
        do {
            return try ExperimentDefinition(
                key: key, variants: variants.map(\.name), weights: variants.map(\.weight), seed: seed,
                coverage: coverage, hashVersion: version)
        } catch let error as ExperimentError {
            throw ExperimentError(.invalidStoredExperiment, "stored experiment '\(key)': \(error.message)")
        }
    }
}
