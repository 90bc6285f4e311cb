import ArgumentParser
import Foundation
import OnboardMetrics

/// The exit status of `funnel`, by what went wrong (README, "Exit codes"):
///
/// - 0: done (an ingest that rejected lines is done: the summary counts them);
/// - 64: usage: a bad option or argument (ArgumentParser's validation status);
/// - 65: data: an input file, flow definition, mapping or event data that cannot be used;
/// - 69: the database cannot be reached (or the embedded cluster cannot be started; or, through a
///   Citus coordinator, one of its workers);
/// - 75: a sharded ingest left events in the spool for a shard that is down (run it again later);
/// - 1: any other failure (an error the database reported, a file that cannot be written).
///
/// No input makes `funnel` trap: bad input is an error with one of these statuses.
enum ExitStatus {
    static let usage: Int32 = 64
    static let data: Int32 = 65
    static let unavailable: Int32 = 69
    static let waiting: Int32 = 75
    static let failure: Int32 = 1

    /// SQLSTATE classes of a node that cannot be reached: 08 connection exception, 57P
    /// operator intervention (shutdown, crash, cannot connect now).
    static let nodeUnavailableStates = ["08", "57P"]

    /// The status for an error a command threw; nil for ArgumentParser's own (help, usage,
    /// `ExitCode`), which it handles itself.
    static func code(for error: any Error) -> Int32? {
        switch error {
        case let error as PostgresError:
            switch error.code {
            case .connectionFailed, .connectionLost: return unavailable
            case .invalidConfiguration: return usage
            // A server that lost a node it reads through (a Citus worker that is down reaches
            // the client as the coordinator's connection-failure or shutdown error).
            case .server where Self.nodeUnavailableStates.contains(where: { error.sqlState?.hasPrefix($0) == true }):
                return unavailable
            default: return failure
            }
        case is EmbeddedClusterError: return unavailable
        case is MigrationError, is TraceError: return failure
        case let error as IngestError: return error.code == .io ? data : (error.code == .rejectsFile ? usage : data)
        case is DurationText.ParseError, is AdHocFunnelError: return usage
        case is FlowError, is EventValidationError, is SimulationError: return data
        case is ExperimentError, is CollectorError, is EventMappingError, is ViewerError, is CohortError: return data
        default: return nil
        }
    }
}

extension Funnel {
    /// Runs the command and exits with the status of ``ExitStatus`` for what it threw.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard let status = ExitStatus.code(for: error) else { exit(withError: error) }
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            Foundation.exit(status)
        }
    }
}
