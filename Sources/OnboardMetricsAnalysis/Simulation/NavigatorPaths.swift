import OnboardMetricsSDK

/// The path a flow's navigator takes for a context when everybody continues: the root flow's
/// steps in the order they are viewed (sub-flows entered by hand-offs are walked, their own steps
/// are not part of the root's path).
///
/// A path depends on the context only through the steps' conditions, so paths are cached by the
/// truth values of every condition the walk may meet: a million sessions need a handful of walks.
struct NavigatorPaths: Sendable {
    let flow: FlowDefinition
    let catalog: FlowCatalog?
    /// Every step whose condition may matter: the root's and those of reachable sub-flows.
    let conditionSteps: [Step]
    var index: [[Bool]: Int32] = [:]
    /// Root step indices in visit order, by path number.
    var paths: [[Int]] = []

    init(flow: FlowDefinition, catalog: FlowCatalog?) {
        self.flow = flow
        self.catalog = catalog
        var steps = flow.steps.filter { $0.when != nil }
        var seen: Set<String> = [flow.id]
        var pending = flow.steps.compactMap(\.handOff)
        while let target = pending.popLast() {
            guard seen.insert(target).inserted, let sub = catalog?[target] else { continue }
            steps += sub.steps.filter { $0.when != nil }
            pending += sub.steps.compactMap(\.handOff)
        }
        conditionSteps = steps
    }

    /// The number of the path for `context`, walking the navigator the first time it is met.
    /// - Throws: `SimulationError` (`.invalidOptions`) when the navigator refuses a move or never finishes.
    mutating func path(for context: [String: JSONValue]) throws(SimulationError) -> Int32 {
        let key = conditionSteps.map { $0.applies(to: context) }
        if let known = index[key] { return known }
        let number = Int32(paths.count)
        paths.append(try walk(context))
        index[key] = number
        return number
    }

    private func walk(_ context: [String: JSONValue]) throws(SimulationError) -> [Int] {
        var navigator = FlowNavigator(flow: flow, catalog: catalog, context: context)
        var visited: [Int] = []
        // Every move views at most one step; a walk longer than all steps of all flows twice loops.
        let limit = 2 * (flow.steps.count + (catalog?.flows.values.reduce(0) { $0 + $1.steps.count } ?? 0)) + 2
        do {
            var events = try navigator.start()
            var moves = 0
            while true {
                for event in events where event.kind == .stepViewed && event.flowID == flow.id {
                    if let stepID = event.stepID, let position = flow.index(of: stepID) { visited.append(position) }
                }
                if navigator.isFinished { break }
                moves += 1
                guard moves <= limit else {
                    throw SimulationError(
                        .invalidOptions, "the navigator of flow '\(flow.id)' does not finish for context \(context)")
                }
                events = try navigator.next()
            }
        } catch let error as FlowError {
            throw SimulationError(.invalidOptions, "flow '\(flow.id)': \(error.message)")
        } catch let error as SimulationError {
            throw error
        } catch {
            throw SimulationError(.invalidOptions, "flow '\(flow.id)': \(error)")
        }
        return visited
    }
}
