import Foundation

@testable import OnboardMetricsPostgres

/// One launch of a program that may be killed: started with its output in files (no pipes to
/// drain), then left to end or killed with SIGKILL after a delay — an app the system kills
/// mid-move.
enum AppLaunch {
    struct Outcome: Sendable {
        /// Killed by the signal (rather than ending by itself).
        var killed: Bool
        var status: Int32
        var errors: String
    }

    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable ARGUMENTS`; kills it with SIGKILL after `killAfter` seconds if it still
    /// runs (never when nil), and after `timeout` in any case (then throws). Output goes to
    /// `log`.out and `log`.err.
    static func run(
        _ executable: String, _ arguments: [String], killAfter: TimeInterval?, timeout: TimeInterval, log: String
    ) async throws -> Outcome {
        try await BlockingIO.run {
            _ = FileManager.default.createFile(atPath: log + ".out", contents: nil)
            _ = FileManager.default.createFile(atPath: log + ".err", contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle(forWritingAtPath: log + ".out")
            process.standardError = FileHandle(forWritingAtPath: log + ".err")
            let ended = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in ended.signal() }
            try process.run()
            var timedOut = false
            if let killAfter, ended.wait(timeout: .now() + killAfter) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
            } else if killAfter == nil, ended.wait(timeout: .now() + timeout) == .timedOut {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            let errors = (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""
            if timedOut { throw Timeout(description: "\(executable) ran over \(timeout) s: \(errors)") }
            return Outcome(
                killed: process.terminationReason == .uncaughtSignal, status: process.terminationStatus,
                errors: errors)
        }
    }
}
