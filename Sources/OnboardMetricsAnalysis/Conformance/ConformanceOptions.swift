import Foundation

/// What a conformance report covers.
public struct ConformanceOptions: Sendable, Hashable {
    /// Sessions that started at or after this instant; `nil` for all.
    public var since: Date?
    /// Sessions that started before this instant; `nil` for all.
    public var until: Date?
    /// Example session ids kept per deviation row (the smallest ids, so reruns agree). Default 3.
    public var examplesPerDeviation = 3

    /// Default options: every session, three examples per deviation.
    public init(since: Date? = nil, until: Date? = nil) {
        self.since = since
        self.until = until
    }
}
