/// Why the dashboard refused or could not answer a request: an HTTP status and a message safe to
/// show (never a database URL, password or secret).
package struct DashboardError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        /// The HTTP status it is answered with.
        package let status: Int
        private init(_ name: String, _ status: Int) {
            self.name = name
            self.status = status
        }
        package var description: String { name }

        /// A query parameter that cannot be used (HTTP 400).
        package static let badRequest = Code("bad_request", 400)
        /// No viewer signed in, or wrong credentials (HTTP 401).
        package static let unauthorized = Code("unauthorized", 401)
        /// A sign-in or sign-out form posted from another site (HTTP 403).
        package static let forbidden = Code("forbidden", 403)
        /// No such flow, experiment or page (HTTP 404).
        package static let notFound = Code("not_found", 404)
        /// Too many failed sign-ins from this address (HTTP 429).
        package static let tooManyAttempts = Code("too_many_attempts", 429)
        /// The database could not be read (HTTP 503); the details go to the log only.
        package static let unavailable = Code("unavailable", 503)
        /// Anything else (HTTP 500); the details go to the log only.
        package static let internalError = Code("internal_error", 500)
    }

    /// The kind of failure.
    package var code: Code
    /// What is wrong, for the viewer.
    package var message: String
    /// Seconds until a sign-in may be tried again (429).
    package var retryAfter: Int?

    package init(_ code: Code, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    package var description: String { message }
}
