import Foundation

/// The server's correction of an app's clock — Segment's and Snowplow's rule, `received_at -
/// (sent_at - occurred_at)` — with bounds, so that a wrong or forged `sent_at` cannot move events
/// by years, nor move the events of another message.
///
/// - A message's offset `received_at - sent_at` is its clock's error plus its network delay. It
///   is trusted only within ``largestOffset`` (a day: time zones set wrong, a clock changed by
///   hand), and only when the message was not sent before its event happened (beyond
///   ``tolerance``): such stamps come from two different clocks, or from no clock at all. An
///   untrusted offset corrects nothing; the client's own time stands.
/// - Each event is corrected by its own message's offset (Segment's per-message rule), except that
///   messages of one session whose offsets lie within ``tolerance`` of each other (the spread of
///   network delays) share the smallest of them, so the app's own order and durations survive
///   being sent in several batches. A message can thus move another message's events by at
///   most ``tolerance``, and only within the same session.
public enum ClockCorrection {
    /// The largest correction trusted, microseconds: 24 hours.
    public static let largestOffset: Int64 = 86_400_000_000
    /// The spread of network delays, and how much earlier than its event a message may say it
    /// was sent (clock steps), microseconds: 2 minutes.
    public static let tolerance: Int64 = 120_000_000

    /// A message's clock offset `received - sent`, microseconds, when it may correct an event
    /// that occurred at `occurred` (all microseconds since 1970); nil when either stamp is missing
    /// or the offset is not plausible.
    public static func offset(occurred: Int64, sent: Int64?, received: Int64?) -> Int64? {
        guard let sent, let received else { return nil }
        let (offset, overflow) = received.subtractingReportingOverflow(sent)
        guard !overflow, offset >= -largestOffset, offset <= largestOffset else { return nil }
        let (earliest, below) = occurred.subtractingReportingOverflow(tolerance)
        guard below || sent >= earliest else { return nil }
        return offset
    }

    /// The offset of a message's event, from its dates.
    public static func offset(occurredAt: Date, sentAt: Date?, receivedAt: Date?) -> Int64? {
        guard let sentAt, let receivedAt else { return nil }
        return offset(
            occurred: Timestamp.microseconds(occurredAt), sent: Timestamp.microseconds(sentAt),
            received: Timestamp.microseconds(receivedAt))
    }
}
