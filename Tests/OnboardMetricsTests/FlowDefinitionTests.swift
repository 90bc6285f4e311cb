import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK

@Suite struct FlowDefinitionTests {
    static let examplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/flows")

    @Test func examplesDecodeToTheDSLFlows() throws {
        let catalog = try FlowCatalog.load(directory: Self.examplesDirectory)
        #expect(catalog.flows.count == ExampleFlows.all.count)
        for flow in ExampleFlows.all {
            #expect(catalog[flow.id] == flow, "examples/flows JSON differs from ExampleFlows.\(flow.id)")
        }
    }

    @Test(arguments: ExampleFlows.all)
    func jsonRoundTrip(flow: FlowDefinition) throws {
        let decoded = try FlowDefinition.decode(from: try flow.jsonData())
        #expect(decoded == flow)
    }

    @Test func builderSupportsControlFlow() throws {
        let withOptional = true
        let flow = FlowDefinition(id: "f", version: 2) {
            Step("a")
            if withOptional { Step("b", skippable: true) }
            for name in ["c", "d"] { Step(name) }
        }
        #expect(flow.steps.map(\.id) == ["a", "b", "c", "d"])
        let json = #"{"id":"f","version":2,"steps":[{"id":"a"},{"id":"b","skippable":true},{"id":"c"},{"id":"d"}]}"#
        #expect(try FlowDefinition.decode(from: Data(json.utf8)) == flow)
    }

    @Test(arguments: [
        (#"{"id":"f","version":1,"steps":[]}"#, FlowError.Code.emptyFlow, "$.steps"),
        (#"{"id":"f","version":1,"steps":[{"id":"a"},{"id":"b"},{"id":"a"}]}"#, .duplicateStepID, "$.steps[2].id"),
        (
            #"{"id":"f","version":1,"steps":[{"id":"a","jumps":["b","zz"]},{"id":"b"}]}"#, .unknownJumpTarget,
            "$.steps[0].jumps[1]"
        ),
        (
            #"{"id":"f","version":1,"steps":[{"id":"a"},{"id":"b","when":"x =="}]}"#, .conditionSyntax,
            "$.steps[1].when"
        ),
        (#"{"id":"f","version":1,"steps":[{"id":"a","handOff":"f"}]}"#, .handOffCycle, "$.steps[0].handOff"),
        (#"{"id":"f","version":1,"steps":[{"id":""}]}"#, .emptyID, "$.steps[0].id"),
        (#"{"id":"f","version":"one","steps":[{"id":"a"}]}"#, .invalidJSON, "$.version"),
        (#"{"id":"f","version":1,"steps":[{"id":"a","skippable":"yes"}]}"#, .invalidJSON, "$.steps[0].skippable"),
        (#"{"id":"f","version":1,"steps":[{"name":"a"}]}"#, .invalidJSON, "$.steps[0].id"),
        (
            #"{"id":"f","version":1,"steps":[{"id":"a","highlights":[{"id":"h","feature":"x"}]},"#
                + #"{"id":"b","highlights":[{"id":"h","feature":"y"}]}]}"#, .duplicateHighlightID,
            "$.steps[1].highlights[0].id"
        ),
        (#"{"id":"f","version":1,"steps":[{"id":"a"}"#, .invalidJSON, "$"),
    ])
    func validationErrorsNameThePath(json: String, code: FlowError.Code, path: String) {
        do {
            _ = try FlowDefinition.decode(from: Data(json.utf8))
            Issue.record("expected \(code)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.path == path, "\(error)")
        }
    }

    @Test func conditionErrorCarriesColumn() {
        let flow = FlowDefinition(id: "f", version: 1) { Step("a", when: "platform = \"ios\"") }
        let error = Self.failure { () throws(FlowError) in try flow.validate() }
        #expect(error?.code == .conditionSyntax)
        #expect(error?.column == 10)
        #expect(error?.path == "$.steps[0].when")
    }

    @Test func catalogFindsUnknownHandOffTarget() {
        let login = FlowDefinition(id: "login", version: 1) { Step("signed-in", handOff: "acount") }
        let error = Self.failure { () throws(FlowError) in _ = try FlowCatalog([login]) }
        #expect(error?.code == .unknownHandOffTarget)
        #expect(error?.path == "flow 'login' $.steps[0].handOff")
    }

    @Test func catalogFindsHandOffCycle() {
        let a = FlowDefinition(id: "a", version: 1) { Step("x", handOff: "b") }
        let b = FlowDefinition(id: "b", version: 1) {
            Step("y")
            Step("z", handOff: "c")
        }
        let c = FlowDefinition(id: "c", version: 1) { Step("w", handOff: "a") }
        let error = Self.failure { () throws(FlowError) in _ = try FlowCatalog([a, b, c]) }
        #expect(error?.code == .handOffCycle)
        #expect(error?.message.contains("a → b → c → a") == true, "\(String(describing: error))")
        #expect(error?.path == "flow 'c' $.steps[0].handOff")
    }

    @Test func catalogNamesTheFlowOfAnInvalidDefinition() {
        let bad = FlowDefinition(id: "bad", version: 1, steps: [])
        let error = Self.failure { () throws(FlowError) in _ = try FlowCatalog([ExampleFlows.healthStudy, bad]) }
        #expect(error?.path == "flow 'bad' $.steps")
    }

    @Test func catalogKeepsEveryVersion() throws {
        var next = ExampleFlows.healthStudy
        next.version = 2
        next.steps.removeAll { $0.id == "modules" }
        let catalog = try FlowCatalog([next, ExampleFlows.healthStudy])
        #expect(catalog["health-study"]?.version == 2)
        #expect(catalog.flow("health-study", version: 1) == ExampleFlows.healthStudy)
        #expect(catalog.flow("health-study", version: 3) == nil)
        let error = Self.failure { () throws(FlowError) in _ = try FlowCatalog([next, next]) }
        #expect(error?.code == .duplicateFlowID)
    }

    @Test func eligibleStepsFollowConditions() {
        let ios: [String: JSONValue] = ["healthDataAvailable": true, "notificationsAuthorized": true]
        #expect(
            ExampleFlows.healthStudy.eligibleSteps(for: ios).map(\.id) == [
                "welcome", "modules", "health-data", "consent", "account",
            ])
        #expect(
            ExampleFlows.healthStudy.eligibleSteps(for: [:]).map(\.id) == [
                "welcome", "modules", "notifications", "consent", "account",
            ])
    }

    /// The error `body` throws, or nil.
    static func failure(_ body: () throws(FlowError) -> Void) -> FlowError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
