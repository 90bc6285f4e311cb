import Foundation

extension TransportStateMachine {
    // MARK: - Reading answers

    /// Seconds to wait from a `Retry-After` value: whole seconds, or an HTTP date (IMF-fixdate,
    /// RFC 850 or asctime form) read against `now`. At most a day: a longer wait is more likely a
    /// misconfigured proxy than intent. `nil` when the value is neither.
    package static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let limit: TimeInterval = 86_400
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let seconds = Double(text) else { return nil }
            return min(seconds, limit)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                return min(max(0, date.timeIntervalSince(now)), limit)
            }
        }
        return nil
    }

    /// A header's value, its name matched without regard to case.
    static func header(_ name: String, in headers: [String: String]) -> String? {
        headers.first { $0.key.lowercased() == name }?.value
    }

    /// The message of a `CollectorErrorResponse` body, or the start of the body as text.
    static func message(_ body: Data) -> String {
        if let response = try? JSONDecoder().decode(CollectorErrorResponse.self, from: body) {
            return "\(response.error.code): \(response.error.message)"
        }
        return String(decoding: body.prefix(200), as: UTF8.self)
    }

    /// A delay as the log lines print it.
    static func seconds(_ delay: TimeInterval) -> String {
        String(format: "%.2f s", delay)
    }
}
