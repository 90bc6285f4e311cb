import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small file the SDK replaces whole (a session's record, the identity): written beside its
/// place, synced, then renamed over it, so a crash or power loss leaves the old content or the
/// new one, never a torn mix.
package enum StateFile {
    /// Replaces the file at `path` with `data`.
    /// - Throws: `SessionStoreError` `.io` when it cannot be written.
    package static func write(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            while written < buffer.count {
                let count = Foundation.write(descriptor, base + written, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
        // Synced before the rename: otherwise the rename may reach the disk before the data, and a
        // power loss leaves an empty file in place of the old one. Plain `fsync` (not the outbox's
        // F_FULLFSYNC, tens of milliseconds on the main thread at every tap): a power loss may lose
        // the last move's record, which costs a resumed session one step, never its file.
        let synced = ok && fsync(descriptor) == 0
        let writeError = failure("cannot write \(temporary)")
        close(descriptor)
        guard synced else {
            unlink(temporary)
            throw writeError
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename \(temporary) to \(path)")
            unlink(temporary)
            throw error
        }
    }

    /// The file's bytes, or nil when there is no file.
    /// - Throws: `SessionStoreError` `.io` when it exists but cannot be read.
    package static func read(_ path: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SessionStoreError(.io, "\(path) exists but cannot be read")
        }
        return data
    }

    /// Moves an unreadable file aside (`NAME.corrupt`, replacing an older one) so the store can
    /// start fresh and someone can still look at what was there.
    package static func setAside(_ path: String) {
        let aside = path + ".corrupt"
        unlink(aside)
        if rename(path, aside) != 0 { unlink(path) }
    }

    private static func failure(_ what: String) -> SessionStoreError {
        SessionStoreError(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}
