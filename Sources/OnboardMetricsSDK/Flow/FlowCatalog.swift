import Foundation

/// The flows an app (or the analyzer) knows, by id and version; resolves hand-offs between them.
///
/// Several versions of a flow may be present (recordings of older versions are replayed against
/// their own definition); `flows` and hand-offs use the highest version of each id.
public struct FlowCatalog: Sendable, Hashable {
    /// The highest version of each flow, by id.
    public private(set) var flows: [String: FlowDefinition]
    /// Every version of every flow: id → version → flow.
    public private(set) var versions: [String: [Int: FlowDefinition]]

    /// Creates a catalog and validates every flow, every hand-off target and the absence of
    /// hand-off cycles. Errors name the flow and the JSON path.
    public init(_ flows: [FlowDefinition]) throws(FlowError) {
        try self.init(flows, files: [:])
    }

    /// A catalog whose errors name the file each flow came from (`files`: flow id and version → file name).
    private init(_ flows: [FlowDefinition], files: [String: String]) throws(FlowError) {
        func located(_ error: FlowError, _ flow: FlowDefinition) -> FlowError {
            var error = error.inFlow(flow.id)
            if let file = files["\(flow.id)@\(flow.version)"] { error.path = "\(file): \(error.path ?? "$")" }
            return error
        }
        var byID: [String: FlowDefinition] = [:]
        var versions: [String: [Int: FlowDefinition]] = [:]
        for flow in flows {
            do throws(FlowError) {
                try flow.validate()
            } catch {
                throw located(error, flow)
            }
            if versions[flow.id]?[flow.version] != nil {
                throw located(
                    FlowError(
                        .duplicateFlowID, "two flows have the id '\(flow.id)' and version \(flow.version)",
                        path: "$.version"), flow)
            }
            versions[flow.id, default: [:]][flow.version] = flow
            if (byID[flow.id]?.version ?? .min) < flow.version { byID[flow.id] = flow }
        }
        self.flows = byID
        self.versions = versions
        do throws(FlowError) {
            try checkHandOffs()
        } catch {
            // checkHandOffs names the flow; add its file.
            var error = error
            if let flow = error.flowID.flatMap({ byID[$0] }),
                let file = files["\(flow.id)@\(flow.version)"]
            {
                error.path = "\(file): \(error.path ?? "$")"
            }
            throw error
        }
    }

    /// Decodes every `*.json` file in `directory` as a flow.
    public static func load(directory: URL) throws(FlowError) -> FlowCatalog {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        } catch {
            throw FlowError(.invalidJSON, "cannot list \(directory.path): \(error.localizedDescription)")
        }
        var flows: [FlowDefinition] = []
        var names: [String: String] = [:]
        for file in files {
            do throws(FlowError) {
                let data: Data
                do { data = try Data(contentsOf: file) } catch {
                    throw FlowError(.invalidJSON, "cannot read: \(error.localizedDescription)", path: "$")
                }
                let flow = try FlowDefinition.decode(from: data)
                flows.append(flow)
                names["\(flow.id)@\(flow.version)"] = file.lastPathComponent
            } catch {
                var located = error
                located.path = "\(file.lastPathComponent) \(error.path ?? "$")"
                throw located
            }
        }
        return try FlowCatalog(flows, files: names)
    }

    /// The highest version of the flow with `id`.
    public subscript(id: String) -> FlowDefinition? { flows[id] }

    /// The flow with `id` and `version`, for replaying recordings of that version.
    public func flow(_ id: String, version: Int) -> FlowDefinition? { versions[id]?[version] }

    private func checkHandOffs() throws(FlowError) {
        let all = versions.values.flatMap(\.values).sorted { ($0.id, $0.version) < ($1.id, $1.version) }
        for flow in all {
            for (index, step) in flow.steps.enumerated() {
                if let target = step.handOff, flows[target] == nil {
                    var error = FlowError(
                        .unknownHandOffTarget, "hand-off target '\(target)' is not a known flow",
                        path: "flow '\(flow.id)' $.steps[\(index)].handOff")
                    error.flowID = flow.id
                    throw error
                }
            }
        }
        // Depth-first search over the hand-off graph; a grey node met again closes a cycle.
        var state: [String: Int] = [:]  // 1 visiting, 2 done
        func visit(_ id: String, _ trail: [String]) throws(FlowError) {
            if state[id] == 2 { return }
            if state[id] == 1 {
                let cycle = (trail.drop { $0 != id } + [id]).joined(separator: " → ")
                let from = trail.last ?? id
                let index = flows[from]?.steps.firstIndex { $0.handOff == id } ?? 0
                var error = FlowError(
                    .handOffCycle, "hand-offs form a cycle: \(cycle)", path: "$.steps[\(index)].handOff")
                error = error.inFlow(from)
                error.flowID = from
                throw error
            }
            state[id] = 1
            for step in flows[id]?.steps ?? [] {
                if let target = step.handOff { try visit(target, trail + [id]) }
            }
            state[id] = 2
        }
        for id in flows.keys.sorted() { try visit(id, []) }
    }
}
