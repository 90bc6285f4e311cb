#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Spool {
    /// Makes what was written to `descriptor` durable. On Apple platforms `fsync` only reaches the
    /// drive's cache, which a power loss can still lose; `F_FULLFSYNC` asks the drive to write it
    /// out (Apple's "Reducing disk writes" guidance), with `fsync` as the fallback where a file
    /// system refuses it. Elsewhere `fsync` already flushes the device.
    static func syncToStorage(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }
}
