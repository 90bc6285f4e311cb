import Foundation
import OnboardMetrics

/// Where a sharded `funnel ingest` spools the events of shards that are down, by default: one
/// folder per coordinator database (by identity, not URL), under the user's state folder, so that
/// the next ingest into the same coordinator drains it from whatever folder it runs in.
enum IngestSpoolFolder {
    /// `ONBOARDMETRICS_STATE_DIR`, else `$XDG_STATE_HOME/onboardmetrics`, else
    /// `~/.local/state/onboardmetrics`; then `ingest-spool/SYSTEM-DATABASE`.
    static func `default`(
        for identity: DatabaseIdentity, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let state: String
        if let configured = environment["ONBOARDMETRICS_STATE_DIR"], !configured.isEmpty {
            state = configured
        } else if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            state = xdg + "/onboardmetrics"
        } else if let home = environment["HOME"], !home.isEmpty {
            state = home + "/.local/state/onboardmetrics"
        } else {
            state = ".onboardmetrics"
        }
        return "\(state)/ingest-spool/\(identity.folderName)"
    }
}
