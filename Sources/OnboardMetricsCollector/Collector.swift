import CoreMetrics
import Foundation
import Logging
import OnboardMetricsFormats
import OnboardMetricsSDK
import OnboardMetricsStore

/// The HTTP collector's logic, apart from any HTTP server: checks a batch request's key, rate
/// and body, records its valid events through an ``EventRecorder`` and answers with a status, headers
/// and a JSON body. `funnel serve` puts it behind Hummingbird.
///
/// An answer of 200 is sent only once the accepted events are committed to PostgreSQL or, while
/// the database is unreachable, written to the recorder's fsynced spool: a crash after the answer
/// loses nothing that was acknowledged.
package final class Collector: Sendable {
    /// Limits and clocks.
    package struct Configuration: Sendable {
        /// Largest body accepted, in bytes (413 above). Default 1 MiB.
        package var maximumBodyBytes = 1 << 20
        /// Most events in one batch (413 above). Default 1,000.
        package var maximumEvents = 1_000
        /// Batch requests a second per key on average (429 above); 0 for no limit. Default 500:
        /// a key is shared by every install of an app.
        package var rateLimit = 500.0
        /// Batch requests a key may make at once. Default 1,000.
        package var burst = 1_000.0
        /// Events a second per key on average (429 above), counted over every format; 0 for no
        /// limit. Default 50,000. The request limit alone lets one key send 500 full batches a
        /// second, more than the server stores: one app could then fill the recorder's queue
        /// and its spool, and every other app would wait behind it.
        package var eventRateLimit = 50_000.0
        /// Events a key may send at once. Default 200,000.
        package var eventBurst = 200_000.0
        /// The server's clock: `received_at`, rate limiting.
        package var clock: @Sendable () -> Date = { Date() }
        /// How Segment and PostHog calls become onboarding events (`--mapping`).
        package var mapping = EventMapping()
        /// Where the collector's counters go (default: the process's bootstrapped backend).
        package var metricsFactory: any MetricsFactory = MetricsSystem.factory

        package init() {}
    }

    /// What to send back.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [(String, String)] = []
        package var body: Data

        package init(status: Int, headers: [(String, String)] = [], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    package let configuration: Configuration
    package let recorder: any EventRecording
    package let metrics: CollectorMetrics
    private let keys: AppKeyCache
    private let limiter: RateLimiter
    private let eventLimiter: RateLimiter
    /// One line per refused request, with its status, code and (once known) the key's id and
    /// prefix — never the key: a request's secret is neither logged nor put in a message. Also
    /// where rejected events of Segment and PostHog batches are told (their clients do not read
    /// per-event results).
    let logger: Logger

    package init(
        configuration: Configuration, recorder: any EventRecording, keys: AppKeyCache,
        logger: Logger = Logger(label: "onboardmetrics.collector")
    ) {
        self.configuration = configuration
        self.recorder = recorder
        self.keys = keys
        self.logger = logger
        metrics = CollectorMetrics(factory: configuration.metricsFactory)
        limiter = RateLimiter(rate: configuration.rateLimit, burst: configuration.burst)
        eventLimiter = RateLimiter(rate: configuration.eventRateLimit, burst: configuration.eventBurst)
    }

    /// The outcome of checking a request's key and rate.
    package enum Authorization: Sendable {
        case allowed(AppKey)
        case refused(Answer)
    }

    /// Checks the `Authorization` header: the key's record, or the answer that refuses the request.
    package func authorize(_ header: String?) async -> Authorization {
        await authorize(secret: Self.secret(fromAuthorization: header))
    }

    /// The app key in an `Authorization` header: `Bearer KEY`, or HTTP Basic with the key as the
    /// user name and an empty password (how Segment's and RudderStack's clients send a write key).
    package static func secret(fromAuthorization header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "bearer": return value.isEmpty ? nil : value
        case "basic":
            guard let data = Data(base64Encoded: value), let text = String(data: data, encoding: .utf8) else {
                return nil
            }
            let user = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            return user?.isEmpty == false ? user : nil
        default: return nil
        }
    }

    /// Checks an app key (from a header or, for Segment and PostHog, from the body).
    package func authorize(secret: String?) async -> Authorization {
        let started = Date()
        guard let secret, !secret.isEmpty else {
            return .refused(
                refuse(
                    401, "unauthorized", "send the app key as Authorization: Bearer KEY (funnel keys create makes one)",
                    headers: [("WWW-Authenticate", "Bearer")], since: started))
        }
        let key: AppKey?
        do {
            key = try await keys.key(for: secret, now: configuration.clock())
        } catch {
            // The caller is not authenticated: the detail (connection settings, libpq's text) goes
            // to the server's log only.
            logger.error("app keys cannot be checked", metadata: ["error": "\(error)"])
            return .refused(
                refuse(
                    503, "unavailable", "the server cannot check app keys right now; retry later",
                    headers: [("Retry-After", "5")], since: started))
        }
        guard let key else {
            return .refused(
                refuse(
                    401, "unauthorized", "unknown or revoked app key", headers: [("WWW-Authenticate", "Bearer")],
                    since: started))
        }
        if let wait = limiter.acquire(key: key.id, now: configuration.clock()) {
            return .refused(
                rateLimited(wait, over: configuration.rateLimit, "batches", key: key, since: started))
        }
        return .allowed(key)
    }

    /// Whole seconds for `Retry-After`: at least 1, at most a day (a tiny rate makes the wait
    /// too long for an `Int`, and no client should be told to wait longer).
    static func retryAfter(_ wait: TimeInterval) -> Int {
        Int(min(86_400, max(1, wait.rounded(.up))))
    }

    /// The 429 for a key over its limit of `rate` `things` a second, to come back after `wait`.
    private func rateLimited(
        _ wait: TimeInterval, over rate: Double, _ things: String, key: AppKey, since started: Date
    ) -> Answer {
        let seconds = Self.retryAfter(wait)
        return refuse(
            429, "rate_limited",
            "more than \(JSONValue.text(rate)) \(things) a second for this key; retry after \(seconds) s",
            headers: [("Retry-After", String(seconds))], key: key, since: started)
    }

    /// Takes `events` from the key's event budget: `nil` to go ahead, or the 429 that refuses the
    /// whole batch (nothing of it recorded, so the client resends all of it).
    /// Also refuses (503, nothing charged) while the recorder cannot take more: the database is
    /// unreachable and the spool at its cap, where answering 200 would acknowledge events the
    /// server may not keep.
    func chargeEvents(_ events: Int, key: AppKey?, since started: Date) -> Answer? {
        if events > 0, recorder.isRefusingEvents {
            return refuse(
                503, "unavailable",
                "the database is unreachable and the server's spool is full; nothing was recorded, retry later",
                headers: [("Retry-After", "30")], key: key, since: started)
        }
        guard let key, events > 0,
            let wait = eventLimiter.acquire(key: key.id, now: configuration.clock(), cost: Double(events))
        else { return nil }
        return rateLimited(wait, over: configuration.eventRateLimit, "events", key: key, since: started)
    }

    /// The answer for a body over ``Configuration/maximumBodyBytes``.
    package func bodyTooLarge(key: AppKey? = nil, since started: Date) -> Answer {
        refuse(
            413, "payload_too_large",
            "the body is over \(configuration.maximumBodyBytes) bytes; split the batch and send the parts",
            key: key, since: started)
    }

    /// Records the batch in `body`, sent with `key`, and answers with one result per event.
    package func record(body: [UInt8], key: AppKey? = nil, since started: Date) async -> Answer {
        let batch: EventBatch
        do {
            let maximumEvents = configuration.maximumEvents
            batch = try body.withUnsafeBufferPointer { try EventBatch.parse($0, maximumEvents: maximumEvents) }
        } catch let error as CollectorError {
            return error.code == .tooManyEvents
                ? refuse(413, error.code.description, error.message, key: key, since: started)
                : refuse(400, error.code.description, error.message, key: key, since: started)
        } catch {
            return refuse(400, "malformed", "\(error)", key: key, since: started)
        }
        let events = batch.items.lazy.filter { if case .event = $0 { true } else { false } }.count
        if let refusal = chargeEvents(events, key: key, since: started) { return refusal }
        let now = configuration.clock()
        var results: [BatchResponse.Result] = []
        results.reserveCapacity(batch.items.count)
        // The answer waits for this batch's events, not for other requests' (RecordingMark).
        var mark = RecordingMark()
        for (index, item) in batch.items.enumerated() {
            switch item {
            case .invalid(let eventID, let error):
                results.append(Self.rejection(index, eventID, error))
            case .event(var event):
                // The server's clock says when it arrived; the batch's sent_at, stamped by the same
                // client clock as occurred_at, is what skew correction compares it with.
                event.receivedAt = now
                if let sentAt = batch.sentAt { event.sentAt = sentAt }
                do {
                    try recorder.record(event, marking: &mark)
                    results.append(.init(index: index, eventID: event.eventID, status: .accepted))
                } catch let error as EventValidationError {
                    results.append(Self.rejection(index, event.eventID, error))
                } catch {
                    // Shut down, or out of room (database unreachable, spool full): the client
                    // keeps the batch and resends it; what of it was queued is stored once.
                    return refuse(
                        503, "unavailable", "the server cannot record now: \(error)",
                        headers: [("Retry-After", "30")], key: key, since: started)
                }
            }
        }
        let response = BatchResponse(results: results)
        for case let error? in results.map(\.error) { metrics.rejected(format: "native", code: error.code) }
        if response.accepted > 0 { await recorder.flush(mark) }
        let seconds = Date().timeIntervalSince(started)
        metrics.batch(
            status: 200, seconds: seconds, received: results.count, accepted: response.accepted,
            rejected: response.rejected)
        return Answer(
            status: 200, headers: [("Content-Type", "application/json")], body: Self.encodeBatchResponse(response))
    }

    /// `GET /healthz`: the process answers, with the recorder's counters.
    package func healthAnswer() -> Answer {
        struct Health: Encodable {
            var status = "ok"
            var version = OnboardMetricsVersion.current
            var recorder: EventRecorder.Counters
        }
        return Answer(
            status: 200, headers: [("Content-Type", "application/json")],
            body: Self.encode(Health(recorder: recorder.counters)))
    }

    func refuse(
        _ status: Int, _ code: String, _ message: String, headers: [(String, String)] = [], key: AppKey? = nil,
        since started: Date
    ) -> Answer {
        let seconds = Date().timeIntervalSince(started)
        metrics.batch(status: status, seconds: seconds)
        var metadata: Logger.Metadata = [
            "status": "\(status)", "code": "\(code)", "reason": "\(message)",
            "seconds": "\(String(format: "%.6f", seconds))",
        ]
        if let key {
            metadata["key_id"] = "\(key.id)"
            metadata["key_prefix"] = "\(key.prefix)"
        }
        // The client's fault (401, 400, 413, 429) is routine; the server's own (503) is not.
        logger.log(level: status >= 500 ? .warning : .info, "request refused", metadata: metadata)
        return Answer(
            status: status, headers: [("Content-Type", "application/json")] + headers,
            body: Self.encode(RefusalBody(code: code, message: message)))
    }

    static func rejection(_ index: Int, _ eventID: UUID?, _ error: EventValidationError) -> BatchResponse.Result {
        .init(
            index: index, eventID: eventID, status: .rejected,
            error: .init(code: error.code.description, field: error.field, reason: error.reason))
    }

    static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data(#"{"error":{"code":"internal","message":"encoding failed"}}"#.utf8)
    }
}
