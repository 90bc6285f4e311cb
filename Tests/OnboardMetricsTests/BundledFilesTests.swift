import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// The migrations and example flows the binary carries are the files of migrations/ and
/// examples/flows/, byte for byte. When this fails, run scripts/generate-bundled-files.sh.
@Suite struct BundledFilesTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func files(in folder: String, suffix: String) throws -> [(name: String, text: String)] {
        let directory = packageRoot.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(suffix) }.sorted()
            .map { ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func migrationsMatchTheFolder() throws {
        let onDisk = try Self.files(in: "migrations", suffix: ".sql")
        #expect(!onDisk.isEmpty)
        #expect(BundledMigrations.files.map(\.name) == onDisk.map(\.name))
        for (carried, file) in zip(BundledMigrations.files, onDisk) {
            #expect(carried.text == file.text, "\(file.name) differs: run scripts/generate-bundled-files.sh")
        }
        let bundled = try Migration.bundled()
        let loaded = try Migration.load(from: Self.packageRoot.appendingPathComponent("migrations"))
        #expect(bundled == loaded)
    }

    @Test func exampleFlowsMatchTheFolder() throws {
        let onDisk = try Self.files(in: "examples/flows", suffix: ".json")
        #expect(onDisk.count == ExampleFlows.all.count)
        #expect(ExampleFlows.bundledFileNames == onDisk.map(\.name))
        for (carried, file) in zip(BundledExampleFlows.files, onDisk) {
            #expect(carried.text == file.text, "\(file.name) differs: run scripts/generate-bundled-files.sh")
        }
    }

    @Test func anExampleIsFoundByItsFileNameFromAnyFolder() throws {
        let (flow, catalog) = try #require(try ExampleFlows.bundled(named: "examples/flows/health-study.json"))
        #expect(flow == ExampleFlows.healthStudy)
        // The catalog holds the other examples, so login can hand off to account.
        let (login, loginCatalog) = try #require(try ExampleFlows.bundled(named: "/nowhere/login.json"))
        #expect(login == ExampleFlows.login)
        #expect(catalog.flows.count == ExampleFlows.all.count && loginCatalog.flows.count == ExampleFlows.all.count)
        #expect(try ExampleFlows.bundled(named: "examples/flows/no-such-flow.json") == nil)
    }

    @Test func theVersionIsSemantic() {
        let parts = OnboardMetricsVersion.current.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil })
    }
}
