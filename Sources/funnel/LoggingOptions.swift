import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers

/// `--log-level` (or `LOG_LEVEL`): how much the library's components (recorder, collector, key
/// cache, migrations) log to stderr through swift-log, one line per event with its metadata.
/// Shared by every command that talks to the database (it is part of ``DatabaseOptions``).
struct LoggingOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Log level: trace, debug, info, notice, warning, error or critical.",
            discussion: "Default: LOG_LEVEL, else info for funnel serve and notice for the other commands "
                + "(error with --quiet)."))
    var logLevel: Logger.Level?

    /// Whether this process bootstrapped logging already.
    private static let bootstrapped = NIOLockedValueBox(false)

    /// An unknown `LOG_LEVEL` (an environment variable, so no usage text goes with it).
    struct UnknownLevel: Error, CustomStringConvertible {
        var text: String
        var description: String {
            "LOG_LEVEL=\(text) is not a level: trace, debug, info, notice, warning, error or critical"
        }
    }

    /// The level these options ask for: `--log-level`, `LOG_LEVEL`, else `fallback`.
    /// - Throws: ``UnknownLevel``.
    func level(fallback: Logger.Level) throws -> Logger.Level {
        if let logLevel { return logLevel }
        if let text = ProcessInfo.processInfo.environment["LOG_LEVEL"], !text.isEmpty {
            guard let level = Logger.Level(rawValue: text.lowercased()) else { throw UnknownLevel(text: text) }
            return level
        }
        return fallback
    }

    /// Sends every `Logger` of the process to stderr at the chosen level. Only the first call of a
    /// process counts (swift-log allows one bootstrap).
    func bootstrap(fallback: Logger.Level) throws {
        let level = try level(fallback: fallback)
        let first = Self.bootstrapped.withLockedValue { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
