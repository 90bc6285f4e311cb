import Foundation

extension TransportStateMachine {
    // MARK: - What each answer does

    /// What an answer does to the batch in flight.
    package enum Verdict: Sendable, Hashable {
        /// Remove the batch from the queue: `sent` events accepted, `rejected` refused for good.
        case settle(sent: Int, rejected: Int)
        /// Put the batch's two halves back in front of the queue (a `413` of more than one event).
        case split
        /// Put the batch back in front and attempt again after `delay` seconds; `serverAsked` for a
        /// `429`'s `Retry-After`, which a flush does not cut short.
        case retry(after: TimeInterval, serverAsked: Bool)
    }

    /// The decision on an answer: what to do with the batch, and what to log first.
    package struct AnswerPlan: Sendable, Hashable {
        /// What to do with the batch in the on-disk queue.
        package var verdict: Verdict
        /// Lines for ``HTTPTransport/Configuration/log``, in order.
        package var log: [String]
    }

    /// Decides what the answer `outcome` to `batch` does: `2xx` settles each event as its result
    /// says; `413` splits, or drops a lone event as rejected; `429` waits for its `Retry-After`;
    /// `401`/`403` retry at the maximum backoff; `408`, `5xx`, network errors and unreadable
    /// answers retry with backoff and full jitter (never sooner than a `Retry-After`); any other
    /// `4xx` drops the batch as rejected.
    ///
    /// The worker then changes the queue as the plan says and reports ``answerApplied(waited:now:)``,
    /// which updates the counters: a flush is resumed only once the queue on disk agrees.
    /// - Parameters:
    ///   - clock: the configuration's clock, which reads `Retry-After` dates; the transport reads
    ///     it only when ``retryAfterValue(of:)`` finds one (without it the header is ignored).
    ///   - random: uniform in 0...1, for the backoff's jitter.
    package mutating func answer(
        _ outcome: Result<BatchPoster.Reply, any Error>, for batch: TransportBatch, clock: Date?, random: Double
    ) -> AnswerPlan {
        var log: [String] = []
        let verdict = decide(outcome, for: batch, clock: clock, random: random, log: &log)
        attempt = .applying(verdict)
        return AnswerPlan(verdict: verdict, log: log)
    }

    /// The worker changed the queue as the last ``AnswerPlan`` said (for a retry, it waits
    /// `waited` seconds: the delay chosen, or what the transport's test hook made of it). Counts
    /// the outcome, schedules the next attempt and resumes the flushes that are done.
    package mutating func answerApplied(waited: TimeInterval?, now: Date) -> Actions {
        var actions = Actions()
        if case .applying(let verdict) = attempt {
            switch verdict {
            case .settle(let sent, let rejected):
                removed += sent + rejected
                counts.sent += sent
                counts.rejected += rejected
            case .split:
                putBackBatches += 2
            case .retry(let delay, let serverAsked):
                putBackBatches += 1
                nextAttempt = now.addingTimeInterval(max(0, waited ?? delay))
                counts.retried += 1
                failedAttempts += 1
                if serverAsked { retryAfterUntil = nextAttempt }
            }
        }
        attempt = .idle
        releaseFlushWaiters(into: &actions)
        return actions
    }

    /// The `Retry-After` value that the rule for `outcome` reads: a `429`'s wait, or a floor under
    /// a `408`'s or `5xx`'s backoff. `nil` for other answers, or when there is none.
    package static func retryAfterValue(of outcome: Result<BatchPoster.Reply, any Error>) -> String? {
        guard case .success(let reply) = outcome else { return nil }
        switch reply.status {
        case 408, 429, 500...: return header("retry-after", in: reply.headers)
        default: return nil
        }
    }

    private mutating func decide(
        _ outcome: Result<BatchPoster.Reply, any Error>, for batch: TransportBatch, clock: Date?, random: Double,
        log: inout [String]
    ) -> Verdict {
        let reply: BatchPoster.Reply
        switch outcome {
        case .failure(let error):
            return retryWithBackoff(
                because: "the collector is unreachable (\(error.localizedDescription))", random: random, log: &log)
        case .success(let answer):
            reply = answer
        }
        let retryAfter = Self.retryAfterValue(of: outcome).flatMap { value in
            clock.flatMap { Self.retryAfter(value, now: $0) }
        }
        switch reply.status {
        case 200..<300:
            return accepted(batch, body: reply.body, random: random, log: &log)
        case 413:
            return tooLarge(batch, body: reply.body, log: &log)
        case 429:
            guard let delay = retryAfter else {
                let reason = "the collector is rate limiting (429 \(Self.message(reply.body)))"
                return retryWithBackoff(because: reason, random: random, log: &log)
            }
            // The server said how long: no backoff growth on top of it.
            log.append("the collector is rate limiting; waiting \(Self.seconds(delay)) as its Retry-After asks")
            return .retry(after: delay, serverAsked: true)
        case 401, 403:
            // The key may be fixed on the server: keep the events, but do not hammer the collector.
            authFailures += 1
            let delay = settings.backoff.maximum
            log.append(
                "the collector refused the app key (\(reply.status) \(Self.message(reply.body))): check the key; "
                    + "\(unsent) events stay queued, retrying in \(Self.seconds(delay)) (attempt \(authFailures))")
            return .retry(after: delay, serverAsked: false)
        case 408, 500...:
            // 408 is the server's own timeout: the batch was fine, the connection was not. A
            // Retry-After (a 503's) is a floor under the backoff.
            let reason = "the collector answered \(reply.status) \(Self.message(reply.body))"
            return retryWithBackoff(atLeast: retryAfter ?? 0, because: reason, random: random, log: &log)
        case 400..<500:
            log.append(
                "the collector refused a batch of \(batch.count) events (\(reply.status) \(Self.message(reply.body))); "
                    + "dropped them")
            succeeded(log: &log)
            return .settle(sent: 0, rejected: batch.count)
        default:
            // A redirect URLSession did not follow, or an informational status: not an answer.
            let reason = "the collector answered an unexpected \(reply.status)"
            return retryWithBackoff(because: reason, random: random, log: &log)
        }
    }

    private mutating func accepted(
        _ batch: TransportBatch, body: Data, random: Double, log: inout [String]
    ) -> Verdict {
        guard let response = try? JSONDecoder().decode(BatchResponse.self, from: body) else {
            let reason = "the collector's answer could not be read as a batch response"
            return retryWithBackoff(because: reason, random: random, log: &log)
        }
        var rejected = 0
        for result in response.results where result.status == .rejected {
            rejected += 1
            let eventID =
                result.eventID
                ?? (batch.events.indices.contains(result.index) ? batch.events[result.index].eventID : nil)
            let error = result.error
            let field = error.map { $0.field.isEmpty ? "" : " \($0.field):" } ?? ""
            log.append(
                "event \(eventID?.uuidString.lowercased() ?? "?") (index \(result.index) of the batch) rejected by the "
                    + "collector: \(error?.code ?? "?")\(field) \(error?.reason ?? "no reason given"); dropped it")
        }
        rejected = min(rejected, batch.count)
        succeeded(log: &log)
        return .settle(sent: batch.count - rejected, rejected: rejected)
    }

    private mutating func tooLarge(_ batch: TransportBatch, body: Data, log: inout [String]) -> Verdict {
        if batch.count > 1 { return .split }
        let id = batch.events.first?.eventID.uuidString.lowercased() ?? "?"
        log.append(
            "event \(id) (\(batch.bytes) bytes) is too large for the collector (413 \(Self.message(body))); dropped it")
        succeeded(log: &log)
        return .settle(sent: 0, rejected: batch.count)
    }

    /// A retry after the next failure in a row: the shared ``Backoff`` with full jitter (anywhere
    /// from 0 to the ceiling, so that a fleet of phones back off apart), never sooner than `floor`.
    /// Logged on the first failure and every tenth.
    private mutating func retryWithBackoff(
        atLeast floor: TimeInterval = 0, because reason: String, random: Double, log: inout [String]
    ) -> Verdict {
        consecutiveFailures += 1
        let delay = max(floor, settings.backoff.delay(afterFailures: consecutiveFailures, random: random))
        if consecutiveFailures == 1 || consecutiveFailures.isMultiple(of: 10) {
            log.append(
                "\(reason); retrying in \(Self.seconds(delay)) (failed attempts in a row: \(consecutiveFailures))")
        }
        return .retry(after: delay, serverAsked: false)
    }

    /// The collector answered: failures in a row end, and the next attempt is not held back.
    private mutating func succeeded(log: inout [String]) {
        if consecutiveFailures >= 1 || authFailures >= 1 {
            log.append("the collector answers again after \(consecutiveFailures + authFailures) failed attempts")
        }
        consecutiveFailures = 0
        authFailures = 0
        nextAttempt = .distantPast
    }
}
