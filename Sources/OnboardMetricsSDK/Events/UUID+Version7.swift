import Foundation

extension UUID {
    /// The Unix milliseconds of a version-7 UUID, `nil` for other versions.
    package var version7Milliseconds: Int64? {
        guard uuid.6 >> 4 == 7 else { return nil }
        return Int64(leadingMilliseconds)
    }

    /// The first 48 bits, where a version-7 UUID keeps its Unix milliseconds, whatever the version
    /// (a bound's floor has zeros after them, no version).
    package var leadingMilliseconds: UInt64 {
        let bytes = uuid
        return UInt64(bytes.0) << 40 | UInt64(bytes.1) << 32 | UInt64(bytes.2) << 24 | UInt64(bytes.3) << 16
            | UInt64(bytes.4) << 8 | UInt64(bytes.5)
    }

    /// Whether this is an id ``StableID/messageEventID(milliseconds:content:)`` made, which the
    /// writer resolves to the id the message was first stored under.
    package var isMessageEventID: Bool {
        uuid.6 == StableID.messageTag.0 && uuid.7 == StableID.messageTag.1
    }

    /// The id with its first 48 bits (the time) zeroed: the same for every receipt of one message.
    package var messageKey: UUID {
        var bytes = uuid
        (bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5) = (0, 0, 0, 0, 0, 0)
        return UUID(uuid: bytes)
    }
}
