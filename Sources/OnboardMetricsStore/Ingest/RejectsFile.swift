import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where rejected lines go: for each, a comment line `# FILE:LINE: reason` and then the line as
/// it was read, so `grep -v '^# ' FILE.rejects` gives back the bad input to fix and ingest again.
///
/// The file is created on the first reject only. A file already at its path is replaced only
/// when it is a rejects file of an earlier run (it begins with such a comment line), so its
/// presence always means this run rejected something; anything else there — an input, any
/// other file — is refused before a byte is read, never truncated.
final class RejectsFile {
    let path: String
    private var handle: FileHandle?
    private var buffer: [UInt8] = []

    /// - Parameter inputs: the files being ingested: the rejects file may be none of them.
    /// - Throws: ``IngestError`` `.rejectsFile` when the path is an input, holds another file, or
    ///   lies in a folder that does not exist or cannot be written.
    init(path: String, inputs: [String]) throws {
        self.path = path
        if let input = inputs.first(where: { IngestPaths.sameFile($0, path) }) {
            throw IngestError(
                .rejectsFile, "the rejects file \(path) is the input \(input); choose another --rejects path")
        }
        // Checked before a line is stored: a rejects file that cannot be made would otherwise fail
        // the run at its first bad line, with the good lines before it stored and the bad one kept nowhere.
        let folder = (path as NSString).deletingLastPathComponent
        let place = folder.isEmpty ? "." : folder
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: place, isDirectory: &isFolder), isFolder.boolValue else {
            throw IngestError(
                .rejectsFile, "the rejects file \(path) cannot be created: there is no folder \(place)")
        }
        guard access(place, W_OK | X_OK) == 0 else {
            throw IngestError(
                .rejectsFile, "the rejects file \(path) cannot be created: the folder \(place) is not writable")
        }
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard Self.isRejectsFile(path) else {
            throw IngestError(
                .rejectsFile,
                "\(path) exists and is not a rejects file of an earlier run; it is left as it is: "
                    + "remove it or choose another --rejects path")
        }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw IngestError(.io, "cannot remove the old rejects file \(path): \(error.localizedDescription)")
        }
    }

    /// A regular file whose first line is a `# FILE:LINE: reason` comment, as ``write`` makes.
    private static func isRejectsFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        guard head.starts(with: Array("# ".utf8)) else { return false }
        let firstLine = head.prefix { $0 != 10 }
        let text = String(decoding: firstLine, as: UTF8.self)
        // "# FILE:LINE: reason": a line number between two colons.
        return text.range(of: #":[0-9]+: "#, options: .regularExpression) != nil
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
            // O_EXCL: a file that appeared at the path since the start is not ours to truncate.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard descriptor >= 0 else {
                throw IngestError(
                    .io, "cannot create the rejects file \(path): \(String(cString: strerror(errno)))")
            }
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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
