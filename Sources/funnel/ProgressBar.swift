import Foundation
import NIOConcurrencyHelpers
import OnboardMetrics

/// A one-line progress bar on stderr, redrawn at most ten times a second; silent when disabled
/// (stderr is not a terminal, or --quiet). Used by ingest, generate and the reports.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let started = Date()
    /// When the bar was last drawn, and whether it is on the screen (updates come from the
    /// parsing thread, clear() from the command; the lock also keeps their writes apart).
    private let drawing = NIOLockedValueBox((lastDraw: Date.distantPast, drawn: false))

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func update(_ progress: EventIngester.Progress) {
        draw(
            fraction: progress.bytesTotal > 0 ? Double(progress.bytesRead) / Double(progress.bytesTotal) : 1,
            count: progress.linesRead, unit: "lines", force: progress.bytesRead == progress.bytesTotal)
    }

    /// Shows `done` of `total` work items, with `count` things of `unit` (e.g. events) so far.
    func update(done: Int, total: Int, count: Int, unit: String) {
        draw(fraction: total > 0 ? Double(done) / Double(total) : 1, count: count, unit: unit, force: done >= total)
    }

    /// Draws the bar for `count` items done of an expected share `fraction` (0...1, clamped;
    /// an estimate is fine), at most ten times a second unless `force`.
    func draw(fraction: Double, count: Int, unit: String, force: Bool = false) {
        guard enabled else { return }
        drawing.withLockedValue { drawing in
            let now = Date()
            guard now.timeIntervalSince(drawing.lastDraw) >= 0.1 || force else { return }
            drawing.lastDraw = now
            write(fraction: fraction, count: count, unit: unit, now: now)
            drawing.drawn = true
        }
    }

    private func write(fraction: Double, count: Int, unit: String, now: Date) {
        let clamped = min(1, max(0, fraction))
        let width = 30
        let filled = Int(clamped * Double(width))
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let line =
            "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(format: "%3.0f%%  ", clamped * 100) + "\(count) \(unit)  "
            + String(format: "%.0f", Double(count) / elapsed) + " \(unit)/s"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Removes the bar so that following output starts on a clean line.
    func clear() {
        drawing.withLockedValue { drawing in
            guard drawing.drawn else { return }
            FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 79) + "\r").utf8))
            drawing.drawn = false
        }
    }
}
