import Foundation
import OnboardMetricsSDK

extension SessionFile {
    /// Reads a file ``write(to:)`` wrote, mapped: its records are decoded where they are, as a
    /// report reads them.
    /// - Throws: ``SessionFileError`` for a file that cannot be read, is torn, or was written for
    ///   another grouping, version or list of kinds.
    init(contentsOf url: URL, closeAfter: Int64, closeFinishedAfter: Int64?) throws {
        self.init(closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
        let data = try Self.map(url)
        try data.withUnsafeBytes { bytes in
            guard bytes.count >= Self.head.count + Self.tail.count,
                bytes.prefix(Self.head.count).elementsEqual(Self.head),
                bytes.suffix(Self.tail.count).elementsEqual(Self.tail)
            else { throw SessionFileError.malformed("no head or no tail of this version") }
            let end = bytes.count - Self.tail.count
            var reader = SlimReader(UnsafeRawBufferPointer(rebasing: bytes[..<end]), from: Self.head.count)
            guard try reader.zigzag() == closeAfter, try reader.optional().map({ Int64($0) }) == closeFinishedAfter
            else { throw SessionFileError.malformed("another grouping") }
            watermark = try reader.varint()
            loadedWatermark = watermark
            database = try reader.string()
            // Every count is bounded by the bytes that could hold it (an event takes at least 8).
            storedSummary.events = try reader.number(below: end / 8 + 1)
            storedSummary.firstMilliseconds = try reader.varint()
            storedSummary.lastMilliseconds = try reader.varint()
            builtEntries = try reader.number(below: end + 1)
            let kinds = try (0..<reader.number(below: 256)).map { _ in try reader.string() }
            guard kinds == Self.kinds.map(\.rawValue) else { throw SessionFileError.malformed("another list of kinds") }
            for _ in 0..<(try reader.number(below: end)) { irregular.insert(try reader.uuid()) }
            let stringCount = try reader.number(below: end)
            let stringStart = reader.offset
            storedStrings.reserveCapacity(stringCount)
            for _ in 0..<stringCount {
                storedStrings.append(reader.offset)
                _ = try reader.bytes(try reader.number(below: end))
            }
            storedStringBytes = stringStart..<reader.offset
            let objectCount = try reader.number(below: end)
            let objectStart = reader.offset
            storedObjects.reserveCapacity(objectCount)
            for _ in 0..<objectCount {
                storedObjects.append(reader.offset)
                guard case .object = try reader.json() else {
                    throw SessionFileError.malformed("a table entry not an object")
                }
            }
            storedObjectBytes = objectStart..<reader.offset
            storedRecords = reader.offset..<end
        }
        stored = data
    }

    /// The file's bytes, mapped: a regular file of this user's that no one else may read or write
    /// (not a link, not a pipe that would hang the read), else an error. Mapped, not copied: a
    /// report at 7M events reads about 100 MB of it. The file is only ever replaced by a rename,
    /// which leaves a mapping whole; truncated in place by hand while a report reads it, the
    /// report would stop (SIGBUS).
    static func map(_ url: URL) throws -> Data {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SessionFileError(.io, "cannot open the session file \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw SessionFileError(.io, "cannot read the session file \(url.path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw SessionFileError(
                .foreign, "\(url.path) is not a regular file of this user's that only they may read and write")
        }
        let size = Int(status.st_size)
        guard size > 0 else { throw SessionFileError.truncated }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw SessionFileError(.io, "cannot map the session file \(url.path): \(String(cString: strerror(errno)))")
        }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { address, size in munmap(address, size) })
    }

    /// Writes the file whole to `url`: to a new file beside it (the user's alone), renamed over it
    /// once complete, so a report reading the old one, or a crash, never sees half of it. The
    /// stored records of changed traces are left out; the summary is counted anew.
    /// - Throws: ``SessionFileError`` `.io`; nothing is left behind.
    func write(to url: URL) throws {
        guard let watermark, let database else { return }
        // The live stored records, in runs, and what they hold.
        var runs: [Range<Int>] = []
        var summary = Summary()
        try stored.withUnsafeBytes { bytes in
            var reader = SlimReader(
                UnsafeRawBufferPointer(rebasing: bytes[..<storedRecords.upperBound]), from: storedRecords.lowerBound)
            while !reader.isAtEnd {
                let start = reader.offset
                let head = try Self.recordHead(&reader)
                reader.offset = head.end
                guard !changed.contains(head.sessionID) else { continue }
                summary.add(events: head.events, first: head.first, last: head.last)
                if let last = runs.last, last.upperBound == start {
                    runs[runs.count - 1] = last.lowerBound..<reader.offset
                } else {
                    runs.append(start..<reader.offset)
                }
            }
        }
        summary.add(addedSummary)
        var head = SlimWriter()
        head.bytes = Self.head
        head.zigzag(closeAfter)
        head.optional(closeFinishedAfter.map { Int($0) })
        head.varint(watermark)
        head.string(database)
        head.varint(UInt64(summary.events))
        head.varint(summary.firstMilliseconds)
        head.varint(summary.lastMilliseconds)
        let entries = storedStrings.count + addedStrings.count + storedObjects.count + addedObjects.count
        head.varint(UInt64(loadedWatermark == nil ? entries : builtEntries))
        head.varint(UInt64(Self.kinds.count))
        for kind in Self.kinds { head.string(kind.rawValue) }
        head.varint(UInt64(irregular.count))
        for sessionID in irregular.sorted(by: { $0.isBefore($1) }) { head.uuid(sessionID) }
        head.varint(UInt64(storedStrings.count + addedStrings.count))
        var strings = SlimWriter()
        for text in addedStrings { strings.string(text) }
        var objects = SlimWriter()
        objects.varint(UInt64(storedObjects.count + addedObjects.count))
        var objectEntries = SlimWriter()
        for object in addedObjects { objectEntries.json(.object(object)) }

        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SessionFileError(.io, "cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: head.bytes)
            try handle.write(contentsOf: stored[storedStringBytes])
            try handle.write(contentsOf: strings.bytes)
            try handle.write(contentsOf: objects.bytes)
            try handle.write(contentsOf: stored[storedObjectBytes])
            try handle.write(contentsOf: objectEntries.bytes)
            for run in runs { try handle.write(contentsOf: stored[run]) }
            try handle.write(contentsOf: added)
            try handle.write(contentsOf: Self.tail)
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw SessionFileError(.io, "cannot rename \(temporary.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? handle.close()
            unlink(temporary.path)
            if let error = error as? SessionFileError { throw error }
            throw SessionFileError(.io, "cannot write \(temporary.path): \(error.localizedDescription)")
        }
    }
}
