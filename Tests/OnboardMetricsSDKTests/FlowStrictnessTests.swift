import Foundation
import Testing

@testable import OnboardMetricsSDK

/// Flow files: unknown keys refused with their JSON path, conditions bounded, sibling errors
/// reported as they are with their file (issue 14, defects 6, 13 and 14).
@Suite struct FlowStrictnessTests {
    static func failure(_ body: () throws(FlowError) -> Void) -> FlowError? {
        do throws(FlowError) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"{"id":"f","version":1,"steps":[{"id":"a"},{"id":"b","skipable":true}]}"#, "$.steps[1].skipable"),
        (#"{"id":"f","version":1,"colour":"red","steps":[{"id":"a"}]}"#, "$.colour"),
        (
            #"{"id":"f","version":1,"steps":[{"id":"a","highlights":[{"id":"h","feature":"x","titel":"t"}]}]}"#,
            "$.steps[0].highlights[0].titel"
        ),
    ])
    func unknownKeysAreRefusedWithTheirPath(json: String, path: String) {
        let error = Self.failure { () throws(FlowError) in _ = try FlowDefinition.decode(from: Data(json.utf8)) }
        #expect(error?.code == .unknownKey)
        #expect(error?.path == path)
        #expect(error?.message.contains("skippable") == true || path != "$.steps[1].skipable")
    }

    @Test func aConditionNestedThirtyThousandDeepIsAnErrorNotACrash() {
        let deep = String(repeating: "(", count: 30_000) + "a" + String(repeating: ")", count: 30_000)
        #expect(Condition(deep).syntaxError?.code == .conditionTooComplex)
        let bangs = String(repeating: "!", count: 2_000) + "a"
        #expect(Condition(bangs).syntaxError?.code == .conditionTooComplex)
        let chain = Array(repeating: "a", count: 1_000).joined(separator: " && ")
        #expect(Condition(chain).syntaxError?.code == .conditionTooComplex)
        // Within the bounds, nesting still works.
        let fine = String(repeating: "(", count: 20) + "a" + String(repeating: ")", count: 20)
        #expect(Condition(fine).syntaxError == nil)
        #expect(Condition(fine).evaluate(["a": .bool(true)]))
        let json = #"{"id":"f","version":1,"steps":[{"id":"a","when":"\#(deep)"}]}"#
        let error = Self.failure { () throws(FlowError) in _ = try FlowDefinition.decode(from: Data(json.utf8)) }
        #expect(error?.path == "$.steps[0].when")
    }

    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func aHandOffCycleInSiblingsIsReportedWithItsFile() throws {
        let folder = try Self.folder([
            "main.json": #"{"id":"main","version":1,"steps":[{"id":"a","handOff":"login"}]}"#,
            "login.json": #"{"id":"login","version":1,"steps":[{"id":"l","handOff":"account"}]}"#,
            "account.json": #"{"id":"account","version":1,"steps":[{"id":"x","handOff":"login"}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = Self.failure { () throws(FlowError) in _ = try FlowCatalog.load(directory: folder) }
        #expect(error?.code == .handOffCycle)
        #expect(error?.path?.hasPrefix("account.json: ") == true || error?.path?.hasPrefix("login.json: ") == true)
    }

    @Test func aBrokenSiblingIsReportedWithItsFile() throws {
        let folder = try Self.folder([
            "main.json": #"{"id":"main","version":1,"steps":[{"id":"a","handOff":"login"}]}"#,
            "login.json": #"{"id":"login","version":1,"steps":[{"id":"l"}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = Self.failure { () throws(FlowError) in _ = try FlowCatalog.load(directory: folder) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.path?.hasPrefix("login.json") == true)
        #expect(error?.code != .unknownHandOffTarget)
    }
}
