import Foundation
import OnboardMetricsSDK

extension ExampleFlows {
    /// The names of the example flow files the binary carries (examples/flows/*.json).
    public static var bundledFileNames: [String] { BundledExampleFlows.files.map(\.name) }

    /// The example flow whose file is named like the last component of `path` (so
    /// `examples/flows/health-study.json` works from any folder), with the other examples as the
    /// catalog its hand-offs may enter; `nil` when no example file has that name.
    /// - Throws: `FlowError` when a carried file does not decode (the tests decode each one).
    public static func bundled(named path: String) throws -> (flow: FlowDefinition, catalog: FlowCatalog)? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard let file = BundledExampleFlows.files.first(where: { $0.name == name }) else { return nil }
        let flow = try FlowDefinition.decode(from: Data(file.text.utf8))
        let all = try BundledExampleFlows.files.map { try FlowDefinition.decode(from: Data($0.text.utf8)) }
        return (flow, try FlowCatalog(all))
    }
}
