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
}
