#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Questions about the paths an ingest is given.
package enum IngestPaths {
    /// Whether two paths name the same existing file (the same device and inode), whatever their
    /// spelling (`./a.jsonl`, a symbolic link, a hard link).
    package static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
