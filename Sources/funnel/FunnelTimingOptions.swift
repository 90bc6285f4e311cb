import ArgumentParser
import Foundation

/// `--window` and `--inactivity`, shared by the commands that replay flows (report, trends,
/// compare, simulate), so they parse and explain them the same way.
struct FunnelTimingOptions: ParsableArguments {
    @Option(help: "Conversion window after a session's start, e.g. 7d, 12h, 30m.")
    var window = "7d"

    @Option(help: "Inactivity after which a session without completion has dropped, e.g. 30m.")
    var inactivity = "30m"

    /// `--window` in seconds. - Throws: a usage error naming the option.
    func windowSeconds() throws -> TimeInterval { try ReportCommand.seconds(window, option: "--window") }

    /// `--inactivity` in seconds. - Throws: a usage error naming the option.
    func inactivitySeconds() throws -> TimeInterval { try ReportCommand.seconds(inactivity, option: "--inactivity") }
}
