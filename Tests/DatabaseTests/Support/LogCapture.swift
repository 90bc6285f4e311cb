import Logging
import Synchronization

/// Keeps what a `Logger` logs, for tests that check what a server writes to its log.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger at `level` whose lines end up in ``text``.
    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "test.capture") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// Every line so far, message and metadata, one a line.
    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { $1 }
                .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            capture.append("\(event.level) \(event.message) \(fields.joined(separator: " "))")
        }
    }
}
