import Foundation

/// An ``EventSink`` in front of another (usually ``HTTPTransport``) that lets events through only
/// as the user's analytics consent allows. The answer and the held events live in the gate's
/// folder, so they survive a relaunch.
///
/// - ``Consent/granted``: events go to the sink.
/// - ``Consent/denied``: nothing goes to the sink, and what was held is deleted: nothing of this
///   user leaves the device.
/// - ``Consent/pending``: as the ``ConsentPolicy`` says — held in the folder (fsynced, in order)
///   until the answer, or sent anonymously.
///
/// ```swift
/// let gate = try ConsentGate(directory: folder.path, policy: .holdUntilGranted, sink: transport)
/// let session = try OnboardingSession.start(flow: flow, user: userID, sink: gate)
/// // The consent step:
/// try gate.setConsent(userAgreed ? .granted : .denied)
/// ```
public final class ConsentGate: EventSink {
    private struct State: Sendable {
        var machine: ConsentStateMachine
        var anonymousID: String
    }

    private struct Stored: Codable {
        var consent: Consent
        var anonymousID: String

        enum CodingKeys: String, CodingKey {
            case consent
            case anonymousID = "anonymous_id"
        }
    }

    private let sink: any EventSink
    private let consentFile: URL
    private let heldFile: URL
    private let state: LockedBox<State>

    /// Opens the gate's folder (made if missing), with the answer stored there — `pending` the
    /// first time.
    /// - Throws: `RecorderError` `.spool` when the folder or its files cannot be used.
    public init(directory: String, policy: ConsentPolicy, sink: any EventSink) throws {
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        consentFile = folder.appendingPathComponent("consent.json")
        heldFile = folder.appendingPathComponent("held.jsonl")
        self.sink = sink
        var stored = Stored(consent: .pending, anonymousID: Self.newAnonymousID())
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if let data = FileManager.default.contents(atPath: consentFile.path) {
                stored = try JSONDecoder().decode(Stored.self, from: data)
            } else {
                try Self.write(stored, to: consentFile)
            }
        } catch {
            throw RecorderError(.spool, "the consent folder \(directory) cannot be used: \(error)")
        }
        state = LockedBox(
            State(
                machine: ConsentStateMachine(consent: stored.consent, policy: policy), anonymousID: stored.anonymousID))
    }

    /// The current answer.
    public var consent: Consent { state.withLock { $0.machine.consent } }

    /// Events waiting in the folder for an answer.
    public var heldCount: Int { state.withLock { _ in (try? readHeld().count) ?? 0 } }

    public func record(_ event: Event) throws { try record(contentsOf: [event]) }

    /// Validates the move's events, then sends, holds or drops them as the consent allows.
    public func record(contentsOf events: [Event]) throws {
        let validator = EventValidator()
        for event in events { try validator.validate(event, now: event.occurredAt) }
        try state.withLock { state in
            switch state.machine.record(events, anonymousID: state.anonymousID) {
            case .forward(let events):
                // Held events a refused or interrupted release left go first, keeping the order.
                if state.machine.consent == .granted, FileManager.default.fileExists(atPath: heldFile.path) {
                    try releaseHeld()
                }
                try sink.record(contentsOf: events)
            case .hold(let events): try append(events)
            case .discard: break
            }
        }
    }

    /// Stores the user's answer. Granted sends what was held, in order; denied deletes it.
    /// - Throws: `RecorderError` `.spool` when the answer cannot be stored, or the sink's error
    ///   (the held events then stay, to be sent by the next call).
    public func setConsent(_ answer: Consent) throws {
        try state.withLock { state in
            var machine = state.machine
            let action = machine.set(answer)
            try persist(Stored(consent: answer, anonymousID: state.anonymousID))
            state.machine = machine
            switch action {
            case .releaseHeld: try releaseHeld()
            case .discardHeld: try? FileManager.default.removeItem(at: heldFile)
            case .none: break
            }
        }
    }

    /// Opts the user out and forgets them on this device in one call: consent denied, held events
    /// deleted, and a new anonymous installation id for whoever uses the app next.
    public func optOut() throws {
        try setConsent(.denied)
        try state.withLock { state in
            state.anonymousID = Self.newAnonymousID()
            try persist(Stored(consent: .denied, anonymousID: state.anonymousID))
        }
    }

    private func persist(_ stored: Stored) throws {
        do { try Self.write(stored, to: consentFile) } catch {
            throw RecorderError(.spool, "the consent answer cannot be stored: \(error)")
        }
    }

    /// Appends the events' lines (one format: `Event.jsonLine`) and waits for the disk.
    private func append(_ events: [Event]) throws {
        do {
            if !FileManager.default.fileExists(atPath: heldFile.path) {
                guard FileManager.default.createFile(atPath: heldFile.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
            let handle = try FileHandle(forWritingTo: heldFile)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(events.map { $0.jsonLine + "\n" }.joined().utf8))
            try handle.synchronize()
        } catch {
            throw RecorderError(.spool, "events cannot be held until consent: \(error)")
        }
    }

    /// Sends the held events in order, then deletes them (a crash between the two sends them again
    /// later: the server keeps each event id once).
    private func releaseHeld() throws {
        let held = try readHeld()
        if !held.isEmpty { try sink.record(contentsOf: held) }
        try? FileManager.default.removeItem(at: heldFile)
    }

    /// The held events, in the order they were recorded; a line torn by a crash is skipped.
    private func readHeld() throws -> [Event] {
        guard let data = FileManager.default.contents(atPath: heldFile.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? Event.decode(jsonLine: $0)
        }
    }

    private static func write(_ stored: Stored, to file: URL) throws {
        // Written whole beside it and renamed into place: a crash leaves the old answer or the new one.
        try JSONEncoder().encode(stored).write(to: file, options: .atomic)
    }

    private static func newAnonymousID() -> String { "anon-" + UUID().uuidString.lowercased() }
}
