import Foundation

/// Session ids for events whose client sent no session (Segment has no sessions; PostHog's
/// server-side SDKs send none): such an event is stored under its user's *session stream*, and
/// replay cuts each stream into sessions at gaps of more than ``inactivity`` — at read time, when
/// all of the user's events are known and in time order, so the sessions do not depend on the
/// order in which batches arrived. A session's id is then made from the stream and the time of
/// its first event: the same events always give the same sessions.
package enum DerivedSessionID {
    /// The gap that ends a derived session (30 minutes, as Google Analytics, Amplitude and
    /// Mixpanel default to), in microseconds.
    package static let inactivity: Int64 = 30 * 60 * 1_000_000

    /// The first six bytes of every stream id ("om-usr"): no UUID a client makes starts so (a v4
    /// or v7 id there would need 48 chance bits, and hashed v8 ids do not carry this prefix).
    private static let prefix: [UInt8] = [0x6F, 0x6D, 0x2D, 0x75, 0x73, 0x72]

    /// The stream of `user`'s events that came without a session.
    package static func stream(user: String) -> UUID {
        let (high, low) = StableID.hash128(Array("stream\u{1F}".utf8) + Array(user.utf8))
        return UUID(
            uuid: (
                prefix[0], prefix[1], prefix[2], prefix[3], prefix[4], prefix[5],
                0x80 | UInt8(truncatingIfNeeded: high >> 8) & 0x0F, UInt8(truncatingIfNeeded: high),
                0x80 | UInt8(truncatingIfNeeded: low >> 56) & 0x3F, UInt8(truncatingIfNeeded: low >> 48),
                UInt8(truncatingIfNeeded: low >> 40), UInt8(truncatingIfNeeded: low >> 32),
                UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 16),
                UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low)
            ))
    }

    /// Whether `id` is a session stream rather than a session.
    package static func isStream(_ id: UUID) -> Bool {
        let bytes = id.uuid
        return bytes.0 == prefix[0] && bytes.1 == prefix[1] && bytes.2 == prefix[2] && bytes.3 == prefix[3]
            && bytes.4 == prefix[4] && bytes.5 == prefix[5] && bytes.6 >> 4 == 8
    }

    /// The session of `stream` whose first event is at `start` (microseconds since 1970).
    package static func session(stream: UUID, start: Int64) -> UUID {
        StableID.sessionID(for: "derived\u{1F}\(stream.uuidString)\u{1F}\(start)")
    }
}
