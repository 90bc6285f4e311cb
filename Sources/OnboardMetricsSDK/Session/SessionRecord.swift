import Foundation

/// What a ``SessionStore`` keeps of one flow's current session between launches: enough to put
/// an ``OnboardingSession`` back exactly where it was (same id, `seq` going on, the navigator's
/// position) or to close it as abandoned without the flow's definition.
package struct SessionRecord: Sendable, Hashable, Codable {
    /// The layout of the file; a file of another format is not read.
    package static let currentFormat = 1

    package var format = SessionRecord.currentFormat
    package var sessionID: UUID
    /// The user the session's latest events were recorded for.
    package var userID: String
    /// The root flow and its version.
    package var flowID: String
    package var flowVersion: Int
    package var context: [String: JSONValue]
    package var variants: [String: String]
    /// Experiments whose exposure the session recorded, sorted.
    package var exposed: [String]
    /// The `seq` of the session's last event.
    package var seq: Int
    /// The time of `session_started`.
    package var startedAt: Date
    /// The time of the session's last event: an abandoned session ends here.
    package var lastActivity: Date
    package var navigator: FlowNavigator.Snapshot
    /// The events of the moves made in the last ``recentWindow`` seconds (at most
    /// ``recentLimit``), saved before they are handed to the sink: a transport holds events in
    /// memory for up to a second before its outbox, so a process killed then would lose them.
    /// The next launch records them again; the server stores an event id once. Nil in files
    /// written before this was kept.
    package var recent: [Event]?

    enum CodingKeys: String, CodingKey {
        case format
        case sessionID = "session_id"
        case userID = "user_id"
        case flowID = "flow_id"
        case flowVersion = "flow_version"
        case context, variants, exposed, seq
        case startedAt = "started_at"
        case lastActivity = "last_activity"
        case navigator, recent
    }

    /// How long a move's events stay in ``recent``: well past the transport's one second in
    /// memory, so a disk that is slow for a moment does not reopen the window.
    package static let recentWindow: TimeInterval = 30
    /// At most this many events stay in ``recent``, so the file stays small.
    package static let recentLimit = 64

    /// The events of `events` to keep in ``recent`` at `now`.
    package static func keepRecent(_ events: [Event], now: Date) -> [Event] {
        Array(events.filter { now.timeIntervalSince($0.occurredAt) <= recentWindow }.suffix(recentLimit))
    }

    /// Whether the flow is still under way (neither completed nor abandoned).
    package var isRunning: Bool {
        navigator.status == FlowNavigator.Status.running.rawValue
            || navigator.status == FlowNavigator.Status.notStarted.rawValue
    }

    /// The file's bytes (dates as milliseconds since 1970, keys sorted: the same record always
    /// gives the same file).
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The record in a file's bytes.
    /// - Throws: `DecodingError` for bytes that are not a record, `SessionStoreError` `.corrupt`
    ///   for a record of another format.
    package static func decode(_ data: Data) throws -> SessionRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let record = try decoder.decode(SessionRecord.self, from: data)
        guard record.format == currentFormat else {
            throw SessionStoreError(.corrupt, "session file format \(record.format) is not \(currentFormat)")
        }
        return record
    }

    /// Closes the session as abandoned at its last activity (not at the time it is noticed): the
    /// `flow_abandoned` event of the step it was left on, timed — and its UUIDv7 id made — at
    /// ``lastActivity``, with the next `seq`. The record becomes abandoned. Needs no flow
    /// definition (the app may have shipped another version since).
    package mutating func abandon(using random: inout some RandomNumberGenerator) -> Event {
        var ids = UUIDv7Generator()
        let top = navigator.frames.last
        seq += 1
        navigator.status = FlowNavigator.Status.abandoned.rawValue
        return Event(
            eventID: ids.next(at: lastActivity, using: &random), sessionID: sessionID, userID: userID, seq: seq,
            kind: .flowAbandoned, flowID: top?.flowID ?? flowID, flowVersion: top?.flowVersion ?? flowVersion,
            stepID: top?.stepID, occurredAt: lastActivity, properties: ["reason": "inactivity"])
    }
}

/// What a session asks its ``SessionStore`` to do with its file after a move.
package enum SessionSave: Sendable {
    /// Write the record.
    case save(SessionRecord)
    /// The session's first move failed: remove its file, if it is still that session's.
    case remove(flowID: String, sessionID: UUID)
}
