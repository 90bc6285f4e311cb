import Foundation

extension UUID {
    /// The Unix milliseconds of a version-7 UUID, `nil` for other versions.
    package var version7Milliseconds: Int64? {
        let bytes = uuid
        guard bytes.6 >> 4 == 7 else { return nil }
        return Int64(bytes.0) << 40 | Int64(bytes.1) << 32 | Int64(bytes.2) << 24 | Int64(bytes.3) << 16
            | Int64(bytes.4) << 8 | Int64(bytes.5)
    }
}
