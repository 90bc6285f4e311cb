import Foundation

/// The body of a `200 OK` answer to `POST /v1/batch`: one result per event of the batch, in the
/// batch's order. Accepted events are stored (or durably spooled) before the answer is sent, so
/// a client may forget them; rejected ones will never be accepted as they are and should not be
/// sent again. A resend of accepted events is harmless: the database keeps one row per `event_id`.
///
/// JSON: `{"accepted": 2, "rejected": 1, "results": [{"index": 0, "event_id": "…", "status":
/// "accepted"}, {"index": 2, "status": "rejected", "error": {"code": "missing", "field":
/// "user_id", "reason": "…"}}]}`.
public struct BatchResponse: Codable, Sendable, Hashable {
    /// What became of one event of the batch.
    public struct Result: Codable, Sendable, Hashable {
        /// Accepted (stored) or rejected (invalid as sent).
        public enum Status: String, Codable, Sendable, Hashable {
            case accepted, rejected
        }

        /// Why an event was rejected: an ``EventValidationError``'s code, field and reason.
        public struct Rejection: Codable, Sendable, Hashable {
            /// The ``EventValidationError/Code`` name, e.g. `missing`, `malformed`, `tooLong`.
            public var code: String
            /// The event's field at fault (`user_id`, `properties`…); empty for the whole event.
            public var field: String
            /// What is wrong, for people.
            public var reason: String

            /// Creates a rejection.
            public init(code: String, field: String, reason: String) {
                self.code = code
                self.field = field
                self.reason = reason
            }
        }

        /// The event's position in the batch's `events` array, from 0.
        public var index: Int
        /// The event's id, when it could be read.
        public var eventID: UUID?
        /// Accepted or rejected.
        public var status: Status
        /// Why it was rejected; `nil` when accepted.
        public var error: Rejection?

        /// Creates a result.
        public init(index: Int, eventID: UUID?, status: Status, error: Rejection? = nil) {
            self.index = index
            self.eventID = eventID
            self.status = status
            self.error = error
        }

        enum CodingKeys: String, CodingKey {
            case index
            case eventID = "event_id"
            case status, error
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decode(Int.self, forKey: .index)
            eventID = try container.decodeIfPresent(UUID.self, forKey: .eventID)
            status = try container.decode(Status.self, forKey: .status)
            error = try container.decodeIfPresent(Rejection.self, forKey: .error)
        }

        /// Ids are written in lowercase, as in the event format.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encodeIfPresent(eventID.map { $0.uuidString.lowercased() }, forKey: .eventID)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(error, forKey: .error)
        }
    }

    /// Events accepted.
    public var accepted: Int
    /// Events rejected.
    public var rejected: Int
    /// One result per event, in the batch's order.
    public var results: [Result]

    /// Creates a response; the counts are taken from `results`.
    public init(results: [Result]) {
        self.results = results
        accepted = results.count { $0.status == .accepted }
        rejected = results.count - accepted
    }
}

/// The body of every answer of the collector other than `200 OK`:
/// `{"error": {"code": "payload_too_large", "message": "…"}}`.
public struct CollectorErrorResponse: Codable, Sendable, Hashable {
    /// A machine-readable code and a message for people.
    public struct Detail: Codable, Sendable, Hashable {
        /// `unauthorized` (401), `malformed` (400), `payload_too_large` (413), `too_many_events` (413),
        /// `rate_limited` (429), `unsupported_media_type` (415), `unavailable` (503).
        public var code: String
        /// What is wrong and what to do, for people.
        public var message: String

        /// Creates a detail.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The error.
    public var error: Detail

    /// Creates an error body.
    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}
