import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

/// The built `funnel` executable (or another program), run as a user would: to the end, or as a
/// server in the background.
///
/// Every wait happens on a blocking-work thread (`BlockingIO`): a test that blocked a thread of
/// Swift's cooperative pool (two on two cores) would stall every other test of the process.
final class FunnelProcess: Sendable {
    /// What a finished run printed.
    struct Outcome: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    private init(
        _ arguments: [String], executable: String, directory: URL? = nil, environment: [String: String] = [:]
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs `funnel ARGUMENTS` (or `executable ARGUMENTS`) to its end, in `directory` (default:
    /// the test's own).
    static func run(
        _ arguments: [String], executable: String = TestDatabase.funnelExecutable, directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await BlockingIO.run {
            try runBlocking(arguments, executable: executable, directory: directory, environment: environment)
        }
    }

    private static func runBlocking(
        _ arguments: [String], executable: String, directory: URL?, environment: [String: String]
    ) throws -> Outcome {
        let running = try FunnelProcess(
            arguments, executable: executable, directory: directory, environment: environment)
        // Read both pipes to their ends before waiting, so a full pipe cannot stall the child.
        let errorData = LockedBox(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        let reader = Thread {
            let data = running.errors.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
            errorsRead.signal()
        }
        reader.start()
        let out = running.output.fileHandleForReading.readDataToEndOfFile()
        running.process.waitUntilExit()
        errorsRead.wait()
        return Outcome(
            status: running.process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: errorData.withLock({ $0 }), as: UTF8.self))
    }

    /// Starts `funnel serve ARGUMENTS --port 0` (or another server `command`, e.g. `dashboard`)
    /// and returns once it prints the URL it listens on.
    static func serve(_ arguments: [String], command: String = "serve", timeout: TimeInterval = 60) async throws
        -> (server: FunnelProcess, url: URL)
    {
        try await BlockingIO.run { try serveBlocking(arguments, command: command, timeout: timeout) }
    }

    private static func serveBlocking(_ arguments: [String], command: String, timeout: TimeInterval) throws
        -> (server: FunnelProcess, url: URL)
    {
        let server = try FunnelProcess([command, "--port", "0"] + arguments, executable: TestDatabase.funnelExecutable)
        var line = Data()
        let deadline = Date().addingTimeInterval(timeout)
        let handle = server.output.fileHandleForReading
        while !line.contains(10) {
            guard Date() < deadline, server.process.isRunning else {
                server.stopBlocking(signal: SIGKILL)
                let errors = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw Timeout(description: "funnel \(command) did not start: \(errors)")
            }
            line.append(handle.availableData)
        }
        let text = String(decoding: line.prefix { $0 != 10 }, as: UTF8.self)
        guard let url = URL(string: text) else { throw Timeout(description: "funnel \(command) printed \(text)") }
        return (server, url)
    }

    /// Sends `signal` and waits for the process to end; returns its exit status and its stderr.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) async -> (status: Int32, errors: String) {
        (try? await BlockingIO.run { [self] in stopBlocking(signal: signal) }) ?? (-1, "")
    }

    /// ``stop(signal:)`` on the calling thread, for `defer` blocks, which cannot await.
    @discardableResult
    func stopBlocking(signal: Int32 = SIGTERM) -> (status: Int32, errors: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        let errors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, errors)
    }
}

extension TestDatabase {
    /// One connection string for a child process (`funnel --database-url`, `recorder-bench`): the
    /// server's URL with the test database's name as a URI parameter.
    static func url(of configuration: PostgresConfiguration) -> String {
        guard let database = configuration.overrides["dbname"] else { return configuration.connectionString }
        return configuration.connectionString + (configuration.connectionString.contains("?") ? "&" : "?")
            + "dbname=\(database)"
    }
}
