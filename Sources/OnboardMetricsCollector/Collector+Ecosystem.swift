import Foundation
import Logging
import OnboardMetricsFormats
import OnboardMetricsSDK
import OnboardMetricsStore

/// Segment's HTTP Tracking API and PostHog's capture API on the collector: the same keys, limits,
/// recorder and answers-once-stored as the native batch; calls become events through
/// ``Configuration/mapping``.
extension Collector {
    /// What a Segment or PostHog request answers on success: counts, and the rejected events
    /// (their clients only look at the status; the rejections are also logged and counted).
    struct EcosystemResponse: Encodable {
        struct Rejection: Encodable {
            var index: Int
            var id: String?
            var code: String
            var field: String
            var reason: String
        }

        /// Segment's answer has `success`, PostHog's `status: 1`.
        var success: Bool?
        var status: Int?
        var accepted: Int
        var rejected: Int
        var rejections: [Rejection]
    }

    /// Undoes `Content-Encoding` (gzip, deflate) within the body limit; the refusal otherwise
    /// (415 another encoding, 413 too large once inflated, 400 a corrupt stream).
    package func decodeBody(_ body: [UInt8], encoding: String?, since started: Date) -> Result<[UInt8], RefusedBody> {
        do {
            return .success(try ContentDecoding.decode(body, encoding: encoding, limit: configuration.maximumBodyBytes))
        } catch let error as CollectorError {
            let status = error.code == .unsupportedEncoding ? 415 : error.code == .bodyTooLarge ? 413 : 400
            return .failure(RefusedBody(answer: refuse(status, error.code.description, error.message, since: started)))
        } catch {
            return .failure(RefusedBody(answer: refuse(400, "malformed", "\(error)", since: started)))
        }
    }

    /// A refusal carried through `Result`.
    package struct RefusedBody: Error, Sendable {
        package var answer: Answer

        package init(answer: Answer) {
            self.answer = answer
        }
    }

    /// Whether a `/v1/batch` body is Segment's (`{"batch": [...]}`) rather than the native
    /// `{"sent_at", "events"}`: the first top-level key that tells them apart decides.
    package static func isSegmentBatch(_ body: [UInt8]) -> Bool {
        body.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            guard (try? cursor.expect(123)) != nil, !cursor.consume(125) else { return false }
            repeat {
                guard let key = try? cursor.string(), (try? cursor.expect(58)) != nil else { return false }
                if key == "batch" { return true }
                if key == "events" { return false }
                guard (try? cursor.skipValue()) != nil else { return false }
            } while cursor.consume(44)
            return false
        }
    }

    /// `POST /v1/batch` with a Segment body, or a single-call endpoint (`type` from its path).
    /// - Parameter key: the key an `Authorization` header named, checked already; without one the
    ///   body's `writeKey` is checked.
    package func recordSegment(
        body: [UInt8], single type: AnalyticsMessage.CallType?, key: AppKey?, since started: Date
    ) async -> Answer {
        let timestamps = TimestampParser()
        let batch: SegmentBatch
        do {
            let maximumEvents = configuration.maximumEvents
            batch = try body.withUnsafeBufferPointer { buffer in
                if let type { return try SegmentBatch.parseSingle(buffer, type: type, timestamps: timestamps) }
                return try SegmentBatch.parseBatch(buffer, maximumEvents: maximumEvents, timestamps: timestamps)
            }
        } catch {
            return counted(.segment, parseRefusal(error, since: started))
        }
        switch await authorize(key, orBody: batch.writeKey) {
        case .refused(let answer): return counted(.segment, answer)
        case .allowed(let key):
            return counted(.segment, await record(batch.items, source: .segment, key: key, since: started))
        }
    }

    /// `POST /batch/`, `/capture/`, `/e/`, `/i/v0/e/`: PostHog's capture API.
    package func recordPostHog(body: [UInt8], key: AppKey?, since started: Date) async -> Answer {
        let batch: PostHogBatch
        do {
            let maximumEvents = configuration.maximumEvents
            batch = try body.withUnsafeBufferPointer {
                try PostHogBatch.parse($0, maximumEvents: maximumEvents, timestamps: TimestampParser())
            }
        } catch {
            return counted(.posthog, parseRefusal(error, since: started))
        }
        switch await authorize(key, orBody: batch.apiKey) {
        case .refused(let answer): return counted(.posthog, answer)
        case .allowed(let key):
            return counted(.posthog, await record(batch.items, source: .posthog, key: key, since: started))
        }
    }

    /// The key a header named (checked already), else the check of the one the body names.
    private func authorize(_ key: AppKey?, orBody secret: String?) async -> Authorization {
        if let key { return .allowed(key) }
        return await authorize(secret: secret)
    }

    /// Counts a Segment or PostHog answer by format and status (refusals included).
    package func counted(_ source: AnalyticsMessage.Source, _ answer: Answer) -> Answer {
        metrics.request(format: source.rawValue, status: answer.status)
        return answer
    }

    private func parseRefusal(_ error: any Error, since started: Date) -> Answer {
        guard let error = error as? CollectorError else { return refuse(400, "malformed", "\(error)", since: started) }
        return refuse(error.code == .tooManyEvents ? 413 : 400, error.code.description, error.message, since: started)
    }

    /// Maps, validates and records the calls; answers once the accepted ones are stored.
    private func record(
        _ items: [SegmentBatch.Item], source: AnalyticsMessage.Source, key: AppKey, since started: Date
    ) async -> Answer {
        let calls = items.lazy.filter { if case .message = $0 { true } else { false } }.count
        if let refusal = chargeEvents(calls, key: key, since: started) { return refusal }
        let now = configuration.clock()
        var accepted = 0
        var mark = RecordingMark()
        var rejections: [EcosystemResponse.Rejection] = []
        func reject(_ index: Int, _ id: String?, _ error: EventValidationError) {
            rejections.append(
                .init(index: index, id: id, code: error.code.description, field: error.field, reason: error.reason))
            let total = metrics.rejected(format: source.rawValue, code: error.code.description)
            // Told for the first hundred, then every thousandth: a broken client must not flood the log.
            if total <= 100 || total % 1_000 == 0 {
                // The id and the reason quote what a client sent: in their debug form, cut short, so
                // that a newline in a messageId cannot forge a line of the log.
                var metadata: Logger.Metadata = [
                    "format": "\(source.rawValue)", "index": "\(index)", "code": "\(error.code)",
                    "field": "\(error.field)", "reason": "\(String(error.reason.prefix(200)).debugDescription)",
                    "rejected_so_far": "\(total)",
                ]
                if let id { metadata["id"] = "\(String(id.prefix(100)).debugDescription)" }
                logger.info("event rejected", metadata: metadata)
            }
        }
        for (index, item) in items.enumerated() {
            switch item {
            case .invalid(let id, let error):
                reject(index, id, error)
            case .message(let message):
                do {
                    let event = try configuration.mapping.event(for: message, receivedAt: now)
                    try recorder.record(event, marking: &mark)
                    accepted += 1
                } catch let error as EventValidationError {
                    reject(index, message.messageID, error)
                } catch {
                    // Shut down, or out of room (database unreachable, spool full): resent later.
                    return refuse(
                        503, "unavailable", "the server cannot record now: \(error)",
                        headers: [("Retry-After", "30")], key: key, since: started)
                }
            }
        }
        if accepted > 0 { await recorder.flush(mark) }
        metrics.batch(
            status: 200, seconds: Date().timeIntervalSince(started), received: items.count, accepted: accepted,
            rejected: rejections.count)
        let response = EcosystemResponse(
            success: source == .segment ? true : nil, status: source == .posthog ? 1 : nil, accepted: accepted,
            rejected: rejections.count, rejections: rejections)
        return Answer(status: 200, headers: [("Content-Type", "application/json")], body: Self.encode(response))
    }
}
