/// The body of every refusal (4xx, 5xx), read by every client the collector serves: ours reads
/// `error` (``CollectorErrorResponse``), Segment's and RudderStack's clients `code` and `message`,
/// PostHog's `detail` — a client that cannot read the body may retry a refusal it should not.
struct RefusalBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }

    var error: Detail
    var code: String
    var message: String
    var detail: String

    init(code: String, message: String) {
        error = Detail(code: code, message: message)
        self.code = code
        self.message = message
        detail = message
    }
}
