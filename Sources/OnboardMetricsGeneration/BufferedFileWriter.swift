import Foundation

/// Appends byte chunks to a file through a `FileHandle`; the generator hands it multi-megabyte
/// chunks so there is one system call per chunk, not per line.
public final class BufferedFileWriter {
    private let handle: FileHandle

    /// Creates (or truncates) the file at `path`.
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Writes `bytes`.
    public func write(_ bytes: [UInt8]) throws {
        // Wraps the array's storage without copying it; the Data does not outlive this call.
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
            try handle.write(contentsOf: data)
        }
    }

    /// Closes the file (no fsync: generated data can be made again from its seed).
    public func close() throws {
        try handle.close()
    }
}
