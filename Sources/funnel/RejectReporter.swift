import Foundation
import OnboardMetrics

/// Prints rejected lines on stderr, up to a limit, then says how many more there were.
final class RejectReporter: @unchecked Sendable {
    // Guarded by `lock`: reports come from the parsing thread.
    private let lock = NSLock()
    private let console: Console
    private let limit: Int
    private let bar: ProgressBar
    private var count = 0

    init(console: Console, limit: Int, bar: ProgressBar) {
        self.console = console
        self.limit = limit
        self.bar = bar
    }

    func report(_ rejection: EventIngester.Rejection) {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        guard count <= limit else { return }
        bar.clear()
        console.status("rejected \(rejection)")
    }

    func finish(rejectsFiles: [String]) {
        lock.lock()
        defer { lock.unlock() }
        if count > limit { console.status("... and \(count - limit) more rejected lines") }
        if !rejectsFiles.isEmpty { console.status("rejected lines written to \(rejectsFiles.joined(separator: ", "))") }
    }
}
