import Foundation
import NIOConcurrencyHelpers
import OnboardMetrics

/// Prints rejected lines on stderr, up to a limit, then says how many more there were.
final class RejectReporter: Sendable {
    private let console: Console
    private let limit: Int
    private let bar: ProgressBar
    /// Lines rejected so far (reports come from the parsing thread).
    private let count = NIOLockedValueBox(0)

    init(console: Console, limit: Int, bar: ProgressBar) {
        self.console = console
        self.limit = limit
        self.bar = bar
    }

    func report(_ rejection: EventIngester.Rejection) {
        let count = count.withLockedValue { count in
            count += 1
            return count
        }
        guard count <= limit else { return }
        bar.clear()
        console.status("rejected \(rejection)")
    }

    func finish(rejectsFiles: [String]) {
        let count = count.withLockedValue { $0 }
        if count > limit { console.status("... and \(count - limit) more rejected lines") }
        if !rejectsFiles.isEmpty { console.status("rejected lines written to \(rejectsFiles.joined(separator: ", "))") }
    }
}
