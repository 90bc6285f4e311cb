import Foundation
import OnboardMetricsPostgres

/// Where PostgreSQL's server programs (`initdb`, `pg_ctl`, `postgres`) are installed.
package struct ServerPrograms: Sendable {
    package let binDirectory: String
    package var initdb: String { binDirectory + "/initdb" }
    package var pgCtl: String { binDirectory + "/pg_ctl" }

    /// Finds the server programs: `ONBOARDMETRICS_PG_BINDIR`, then `PATH`, then the folders
    /// Debian and Homebrew install them in (newest version first).
    /// - Throws: ``EmbeddedClusterError`` `.programsMissing` naming the package to install.
    package static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        searchRoots: [String] = ["/usr/lib/postgresql", "/opt/homebrew/opt", "/usr/local/opt"]
    ) throws -> ServerPrograms {
        var candidates: [String] = []
        if let configured = environment["ONBOARDMETRICS_PG_BINDIR"], !configured.isEmpty {
            candidates.append(configured)
        }
        candidates += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for root in searchRoots {
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            let sorted = versions.filter { root == "/usr/lib/postgresql" || $0.hasPrefix("postgresql") }
                .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
            candidates += sorted.map { "\(root)/\($0)/bin" }
        }
        let fileManager = FileManager.default
        for folder in candidates
        where ["initdb", "pg_ctl", "postgres"].allSatisfy({ fileManager.isExecutableFile(atPath: "\(folder)/\($0)") }) {
            return ServerPrograms(binDirectory: folder)
        }
        throw EmbeddedClusterError(
            .programsMissing,
            "the PostgreSQL server programs (initdb, pg_ctl, postgres) were not found; install them with "
                + "`apt-get install postgresql` (Debian/Ubuntu) or `brew install postgresql@15` (macOS), "
                + "set ONBOARDMETRICS_PG_BINDIR to their folder, or point funnel at a running server with DATABASE_URL")
    }
}
