import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel assign`: which variant a unit gets, exactly as a GrowthBook SDK would assign it.
struct AssignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Print a unit's hash and variant in an experiment (GrowthBook-compatible, no database).",
        discussion: """
            The hash is 32-bit FNV-1a over UTF-16 code units. Version 2: \
            fnv(String(fnv(seed + id))) % 10000 / 10000; version 1: fnv(id + seed) % 1000 / 1000. \
            Variant i owns [sum of earlier weights, that + coverage x weight); weights not summing to 1 \
            become equal weights. A hash outside every range is "not enrolled".

            Examples:
              funnel assign consent-copy user-42
              funnel assign checkout user-42 --weights 0.2,0.8 --coverage 0.5 --format json
            """)

    @Argument(help: "The experiment key (also the seed unless --seed is given).")
    var key: String

    @Argument(help: "The unit id (usually the user id).")
    var id: String

    @Option(help: "The hash seed (default: the key).")
    var seed: String?

    @Option(help: "Variant weights, comma-separated, control first (default: 0.5,0.5).")
    var weights = "0.5,0.5"

    @Option(help: "Variant names, comma-separated, control first (default: control, variant-1, ...).")
    var variants: String?

    @Option(help: "The share of units enrolled, 0...1.")
    var coverage = 1.0

    @Option(help: "Hash version: 1 or 2.")
    var hashVersion = 2

    @Option(help: "Output format: text or json.")
    var format: ReportFormat = .text

    func validate() throws {
        _ = try makeExperiment()
        guard format == .text || format == .json else { throw ValidationError("--format must be text or json") }
    }

    private func makeExperiment() throws -> ExperimentDefinition {
        var parsed: [Double] = []
        for part in weights.split(separator: ",") {
            guard let weight = Double(part.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--weights '\(weights)' is not a comma-separated list of numbers")
            }
            parsed.append(weight)
        }
        let names =
            variants.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            ?? parsed.indices.map { $0 == 0 ? "control" : "variant-\($0)" }
        do {
            return try ExperimentDefinition(
                key: key, variants: names, weights: parsed, seed: seed, coverage: coverage, hashVersion: hashVersion)
        } catch let error as ExperimentError {
            throw ValidationError(error.message)
        }
    }

    private struct Output: Encodable {
        var key: String
        var id: String
        var seed: String
        var hashVersion: Int
        var hashValue: Double
        var enrolled: Bool
        var variant: String?
        var variantIndex: Int?
    }

    func run() throws {
        let experiment = try makeExperiment()
        let outcome = experiment.assign(id)
        switch format {
        case .json:
            print(
                try ReportJSON.encode(
                    Output(
                        key: key, id: id, seed: experiment.seed, hashVersion: experiment.hashVersion,
                        hashValue: outcome.hashValue, enrolled: outcome.variant != nil, variant: outcome.variant,
                        variantIndex: outcome.variantIndex)))
        default:
            print("hash \(outcome.hashValue)")
            print(outcome.variant.map { "variant \($0)" } ?? "not enrolled")
        }
    }
}
