import Foundation
import OnboardMetricsPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a program to completion and captures what it printed.
package enum ProcessRunner {
    package struct Outcome: Sendable {
        package let status: Int32
        package let output: String
    }

    /// Whether this process runs as root (PostgreSQL's server programs refuse to).
    package static var isRoot: Bool { geteuid() == 0 }

    /// Runs `executable` with `arguments`, as `user` when given (through `runuser`, which needs root).
    ///
    /// Uses `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose wait can hang
    /// when the program leaves a daemon behind (as `pg_ctl start` does). Output goes to a
    /// temporary file, not a pipe, for the same reason: the daemon would hold a pipe open.
    package static func run(_ executable: String, _ arguments: [String], as user: String? = nil) throws -> Outcome {
        var argv: [String]
        if let user {
            argv = [
                try locate("runuser", in: ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]), "-u", user, "--", executable,
            ]
        } else {
            argv = [executable]
        }
        argv += arguments
        let outputPath = NSTemporaryDirectory() + "onboardmetrics-\(UUID().uuidString).out"
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw EmbeddedClusterError(.serverFailed, "could not run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw EmbeddedClusterError(
                    .serverFailed, "waiting for \(argv[0]) failed: \(String(cString: strerror(errno)))")
            }
        }
        let exitCode: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Outcome(status: exitCode, output: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The first `name` found in the given folders or on `PATH`.
    package static func locate(_ name: String, in folders: [String] = []) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in folders + path.split(separator: ":").map(String.init) {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw EmbeddedClusterError(.programsMissing, "\(name) not found on PATH")
    }
}
