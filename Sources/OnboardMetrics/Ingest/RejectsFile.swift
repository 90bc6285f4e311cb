import Foundation

/// Where rejected lines go: for each, a comment line `# FILE:LINE: reason` and then the line as
/// it was read, so `grep -v '^# ' FILE.rejects` gives back the bad input to fix and ingest again.
///
/// The file is created on the first reject only; a stale one from an earlier run is removed when
/// the run starts, so its presence always means this run rejected something.
final class RejectsFile {
    let path: String
    private var handle: FileHandle?
    private var buffer: [UInt8] = []

    init(path: String) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path) {
            do { try FileManager.default.removeItem(atPath: path) } catch {
                throw IngestError(.io, "cannot remove the old rejects file \(path): \(error.localizedDescription)")
            }
        }
    }

    /// Whether anything was written.
    private(set) var isUsed = false

    func write(file: String, line: Int, reason: String, content: UnsafeBufferPointer<UInt8>?) throws {
        buffer.append(contentsOf: "# \(file):\(line): \(reason)\n".utf8)
        if let content {
            buffer.append(contentsOf: content)
            buffer.append(10)
        }
        if buffer.count > 1 << 20 { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        if handle == nil {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw IngestError(.io, "cannot create the rejects file \(path)")
            }
            handle = FileHandle(forWritingAtPath: path)
            guard handle != nil else { throw IngestError(.io, "cannot open the rejects file \(path)") }
            isUsed = true
        }
        do {
            try handle?.write(contentsOf: buffer)
        } catch {
            throw IngestError(.io, "cannot write the rejects file \(path): \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        try flush()
        try handle?.close()
        handle = nil
    }
}
