import Foundation

/// How long to wait before retrying after failures in a row: the one formula of the SDK's
/// ``HTTPTransport`` and the server's recorder. The ceiling doubles with each failure from
/// ``initial`` up to ``maximum``; jitter spreads the retries of many clients apart.
package struct Backoff: Sendable, Hashable {
    /// How the delay is drawn under the ceiling.
    package enum Jitter: Sendable, Hashable {
        /// Anywhere from 0 to the ceiling ("full jitter"): for a fleet of phones, which must not
        /// come back together.
        case full
        /// Half the ceiling fixed, half random ("equal jitter"): for a few writers that should not
        /// retry too soon.
        case equal
    }

    /// The first ceiling, in seconds.
    package var initial: TimeInterval
    /// The longest ceiling, in seconds.
    package var maximum: TimeInterval
    /// How the delay is drawn.
    package var jitter: Jitter

    /// A backoff from `initial` up to `maximum` seconds.
    package init(initial: TimeInterval, maximum: TimeInterval, jitter: Jitter) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The ceiling after `failures` failures in a row (from 1): `initial · 2^(failures − 1)`, at
    /// most ``maximum``.
    package func ceiling(afterFailures failures: Int) -> TimeInterval {
        min(maximum, initial * pow(2, Double(min(max(failures, 1) - 1, 30))))
    }

    /// The delay after `failures` failures in a row, `random` uniform in 0...1 (clamped).
    package func delay(afterFailures failures: Int, random: Double) -> TimeInterval {
        let ceiling = ceiling(afterFailures: failures)
        let unit = min(1, max(0, random))
        switch jitter {
        case .full: return ceiling * unit
        case .equal: return ceiling / 2 + ceiling / 2 * unit
        }
    }
}
