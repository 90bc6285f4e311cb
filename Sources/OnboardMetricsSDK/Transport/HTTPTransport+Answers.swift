import Foundation

extension HTTPTransport {
    // MARK: - What each answer does (worker thread)

    /// Settles, splits or schedules a retry of the batch just posted, according to the answer.
    func handle(_ outcome: Result<BatchPoster.Reply, any Error>, for batch: TransportBatch) {
        let reply: BatchPoster.Reply
        switch outcome {
        case .failure(let error):
            retryWithBackoff(batch, because: "the collector is unreachable (\(error.localizedDescription))")
            return
        case .success(let answer):
            reply = answer
        }
        switch reply.status {
        case 200..<300:
            accepted(batch, body: reply.body)
        case 413:
            tooLarge(batch, body: reply.body)
        case 429:
            rateLimited(batch, headers: reply.headers, body: reply.body)
        case 401, 403:
            unauthorized(batch, status: reply.status, body: reply.body)
        case 408, 500...:
            // 408 is the server's own timeout: the batch was fine, the connection was not. A
            // Retry-After (a 503's) is a floor under the backoff.
            let floor = Self.header("retry-after", in: reply.headers).flatMap {
                Self.retryAfter($0, now: configuration.clock())
            }
            retryWithBackoff(
                batch, atLeast: floor ?? 0,
                because: "the collector answered \(reply.status) \(Self.message(reply.body))")
        case 400..<500:
            let message = Self.message(reply.body)
            configuration.log(
                "the collector refused a batch of \(batch.count) events (\(reply.status) \(message)); dropped them")
            settle(batch) { $0.rejected += batch.count }
            succeeded()
        default:
            // A redirect URLSession did not follow, or an informational status: not an answer.
            retryWithBackoff(batch, because: "the collector answered an unexpected \(reply.status)")
        }
    }

    private func accepted(_ batch: TransportBatch, body: Data) {
        guard let response = try? JSONDecoder().decode(BatchResponse.self, from: body) else {
            retryWithBackoff(batch, because: "the collector's answer could not be read as a batch response")
            return
        }
        var rejected = 0
        for result in response.results where result.status == .rejected {
            rejected += 1
            let eventID =
                result.eventID
                ?? (batch.events.indices.contains(result.index) ? batch.events[result.index].eventID : nil)
            let error = result.error
            let field = error.map { $0.field.isEmpty ? "" : " \($0.field):" } ?? ""
            configuration.log(
                "event \(eventID?.uuidString.lowercased() ?? "?") (index \(result.index) of the batch) rejected by the "
                    + "collector: \(error?.code ?? "?")\(field) \(error?.reason ?? "no reason given"); dropped it")
        }
        rejected = min(rejected, batch.count)
        settle(batch) {
            $0.sent += batch.count - rejected
            $0.rejected += rejected
        }
        succeeded()
    }

    private func tooLarge(_ batch: TransportBatch, body: Data) {
        if batch.count > 1 {
            let (first, second) = batch.halves()
            outbox.putBack([first, second])
            return
        }
        let id = batch.events.first?.eventID.uuidString.lowercased() ?? "?"
        configuration.log(
            "event \(id) (\(batch.bytes) bytes) is too large for the collector (413 \(Self.message(body))); dropped it")
        settle(batch) { $0.rejected += batch.count }
        succeeded()
    }

    private func rateLimited(_ batch: TransportBatch, headers: [String: String], body: Data) {
        guard
            let delay = Self.header("retry-after", in: headers).flatMap({
                Self.retryAfter($0, now: configuration.clock())
            })
        else {
            retryWithBackoff(batch, because: "the collector is rate limiting (429 \(Self.message(body)))")
            return
        }
        // The server said how long: no backoff growth on top of it.
        retry(batch, after: delay, serverAsked: true)
        configuration.log("the collector is rate limiting; waiting \(Self.seconds(delay)) as its Retry-After asks")
    }

    private func unauthorized(_ batch: TransportBatch, status: Int, body: Data) {
        authFailures += 1
        let delay = configuration.maximumBackoff
        retry(batch, after: delay, serverAsked: false)
        configuration.log(
            "the collector refused the app key (\(status) \(Self.message(body))): check the key; "
                + "\(counters.queued) events stay queued, retrying in \(Self.seconds(delay)) (attempt \(authFailures))")
    }

    private func retryWithBackoff(_ batch: TransportBatch, atLeast floor: TimeInterval = 0, because reason: String) {
        consecutiveFailures += 1
        let exponent = Double(min(consecutiveFailures - 1, 30))
        let ceiling = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, exponent))
        // "Full jitter": anywhere from 0 to the ceiling, so that a fleet of phones back off apart.
        let delay = max(floor, ceiling * min(1, max(0, random())))
        retry(batch, after: delay, serverAsked: false)
        if consecutiveFailures == 1 || consecutiveFailures.isMultiple(of: 10) {
            configuration.log(
                "\(reason); retrying in \(Self.seconds(delay)) (failed attempts in a row: \(consecutiveFailures))")
        }
    }

    /// Puts the batch back in front and schedules the next attempt.
    private func retry(_ batch: TransportBatch, after delay: TimeInterval, serverAsked: Bool) {
        outbox.putBack([batch])
        nextAttempt = Date().addingTimeInterval(max(0, retryDelay(delay)))
        condition.lock()
        counts.retried += 1
        failedAttempts += 1
        if serverAsked { retryAfterUntil = nextAttempt }
        condition.broadcast()
        condition.unlock()
    }

    private func succeeded() {
        if consecutiveFailures >= 1 || authFailures >= 1 {
            configuration.log("the collector answers again after \(consecutiveFailures + authFailures) failed attempts")
        }
        consecutiveFailures = 0
        authFailures = 0
        nextAttempt = .distantPast
    }

    private func settle(_ batch: TransportBatch, _ update: (inout Counters) -> Void) {
        outbox.settle(batch)
        condition.lock()
        removed += batch.count
        update(&counts)
        condition.broadcast()
        condition.unlock()
    }

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

    private static func seconds(_ delay: TimeInterval) -> String {
        String(format: "%.2f s", delay)
    }
}
