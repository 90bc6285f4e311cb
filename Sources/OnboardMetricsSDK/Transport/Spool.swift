import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An append-only, crash-safe store on disk for events that could not be written to the database
/// yet, drained once the database is back.
///
/// The folder holds segment files `segment-NNNNNNNNNNNNNNNN.spool`. Each record is
/// `"OMSP"`, payload length (UInt32 LE), event count (UInt32 LE), CRC-32 of the payload (UInt32 LE),
/// then the payload: the events as JSONL lines. A record is durable once ``append(_:)`` returns
/// (it is fsynced). A torn or corrupt record is moved to `quarantine/` with a message, never fatal.
/// Past the byte cap, ``FullPolicy`` decides: an app's outbox deletes its oldest segments (their
/// events counted as dropped), a server's spool refuses the append (what it holds was
/// acknowledged to clients). One process at a time owns a folder (an exclusive lock on `spool.lock`).
package final class Spool {
    /// What an append past the byte cap does.
    package enum FullPolicy: Sendable {
        /// Deletes the oldest segments until the spool fits (an app's outbox: the newest events
        /// are the ones worth keeping, as posthog-ios and analytics-swift do with theirs).
        case dropOldest
        /// Throws `RecorderError` `.spoolFull` and stores nothing (a server's spool, whose events
        /// were acknowledged: the caller keeps the batch and refuses new ones).
        case refuse
    }

    package struct Record {
        package let segment: String
        package let events: [Event]
    }

    private static let magic: [UInt8] = Array("OMSP".utf8)
    private static let headerSize = 16

    package let directory: String
    private let capacityBytes: Int
    private let fullPolicy: FullPolicy
    /// A segment is at most an eighth of the cap (and at most 64 MiB), so that going over the cap
    /// drops a small share of the oldest events, not all of them.
    private let segmentBytes: Int
    private let log: (String) -> Void
    private var lockDescriptor: Int32 = -1
    private var activeDescriptor: Int32 = -1
    private var activeName: String?
    private var activeSize = 0
    private var nextSegmentNumber: UInt64 = 1

    /// Opens (creating) the spool folder and takes its lock.
    /// - Throws: `RecorderError` when the folder cannot be created or another process holds it.
    package init(
        directory: String, capacityBytes: Int, whenFull fullPolicy: FullPolicy = .dropOldest,
        log: @escaping (String) -> Void
    ) throws {
        self.directory = directory
        self.capacityBytes = capacityBytes
        self.fullPolicy = fullPolicy
        self.segmentBytes = max(64 * 1024, min(64 * 1024 * 1024, capacityBytes / 8))
        self.log = log
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RecorderError(.spool, "cannot create the spool folder \(directory): \(error.localizedDescription)")
        }
        lockDescriptor = open(directory + "/spool.lock", O_CREAT | O_RDWR, 0o644)
        guard lockDescriptor >= 0 else { throw RecorderError(.spool, "cannot open \(directory)/spool.lock") }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            closeFileDescriptor(lockDescriptor)
            // `deinit` runs for a fully initialised instance even when `init` throws: it must not
            // close the number again (another thread may have been given it meanwhile).
            lockDescriptor = -1
            throw RecorderError(.spool, "the spool folder \(directory) is in use by another recorder process")
        }
        let numbers = segmentNames().compactMap { UInt64($0.dropFirst(8).dropLast(6)) }
        nextSegmentNumber = (numbers.max() ?? 0) + 1
    }

    deinit { close() }

    /// Closes the segment being written and releases the folder for another owner.
    package func close() {
        sealActiveSegment()
        if lockDescriptor >= 0 {
            flock(lockDescriptor, LOCK_UN)
            closeFileDescriptor(lockDescriptor)
        }
        lockDescriptor = -1
    }

    /// Bytes held in all segments.
    package var totalBytes: Int {
        segmentNames().reduce(0) { $0 + fileSize(directory + "/" + $1) }
    }

    /// Whether no segment holds data.
    package var isEmpty: Bool { totalBytes == 0 }

    /// Appends events as one record and makes it durable.
    /// - Returns: events dropped (oldest segments deleted) to stay under the byte cap.
    /// - Throws: `RecorderError` `.spool` when the disk write fails.
    @discardableResult
    package func append(_ events: [Event]) throws -> Int {
        guard !events.isEmpty else { return 0 }
        var payload: [UInt8] = []
        payload.reserveCapacity(events.count * 300)
        for event in events {
            event.appendJSONLine(to: &payload)
            payload.append(0x0A)
        }
        var record = Self.magic
        record.reserveCapacity(Self.headerSize + payload.count)
        appendLittleEndian(UInt32(payload.count), to: &record)
        appendLittleEndian(UInt32(events.count), to: &record)
        appendLittleEndian(CRC32.checksum(payload), to: &record)
        record += payload
        if fullPolicy == .refuse, totalBytes + record.count > capacityBytes {
            throw RecorderError(
                .spoolFull,
                "the spool \(directory) is full (\(capacityBytes) bytes): the \(events.count) events stay out of it")
        }
        if activeDescriptor < 0 || activeSize + record.count > segmentBytes { try rotate() }
        try record.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(activeDescriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw RecorderError(.spool, "writing the spool failed: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
        guard Self.syncToStorage(activeDescriptor) else {
            throw RecorderError(.spool, "syncing the spool failed: \(String(cString: strerror(errno)))")
        }
        activeSize += record.count
        return try enforceCapacity()
    }

    /// Closes the segment being written, so that every segment can be drained.
    package func sealActiveSegment() {
        if activeDescriptor >= 0 { closeFileDescriptor(activeDescriptor) }
        activeDescriptor = -1
        activeName = nil
        activeSize = 0
    }

    /// Names of the sealed segments, oldest first.
    package func sealedSegments() -> [String] {
        segmentNames().filter { $0 != activeName }
    }

    /// Reads a sealed segment's good records; bad bytes go to `quarantine/` with a message.
    /// - Returns: the events of each good record, and how many bytes were quarantined.
    package func read(segment name: String) -> (events: [Event], quarantinedBytes: Int) {
        let path = directory + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else { return ([], 0) }
        let bytes = [UInt8](data)
        var events: [Event] = []
        var position = 0
        var badStart: Int?
        var quarantined = 0
        func quarantine(until end: Int) {
            guard let start = badStart, end > start else { return }
            quarantined += end - start
            saveQuarantine(Array(bytes[start..<end]), from: name, offset: start)
            badStart = nil
        }
        while position < bytes.count {
            if let record = parseRecord(bytes, at: position) {
                quarantine(until: position)
                events += record.events
                position = record.end
            } else {
                if badStart == nil { badStart = position }
                position += 1
                // Resynchronize on the next record marker.
                while position < bytes.count,
                    !(bytes[position] == Self.magic[0] && bytes[position...].starts(with: Self.magic))
                {
                    position += 1
                }
            }
        }
        quarantine(until: bytes.count)
        return (events, quarantined)
    }

    /// Deletes a drained segment.
    package func remove(segment name: String) {
        unlink(directory + "/" + name)
    }

    // MARK: - Internals

    private func parseRecord(_ bytes: [UInt8], at position: Int) -> (events: [Event], end: Int)? {
        guard position + Self.headerSize <= bytes.count, bytes[position...].starts(with: Self.magic) else { return nil }
        let length = Int(readLittleEndian(bytes, position + 4))
        let count = Int(readLittleEndian(bytes, position + 8))
        let checksum = readLittleEndian(bytes, position + 12)
        let start = position + Self.headerSize
        guard start + length <= bytes.count else { return nil }
        let payload = bytes[start..<(start + length)]
        guard payload.withUnsafeBytes({ CRC32.checksum($0) }) == checksum else { return nil }
        var events: [Event] = []
        for line in payload.split(separator: 0x0A) {
            guard let event = try? Event.decode(jsonLine: String(decoding: line, as: UTF8.self)) else { return nil }
            events.append(event)
        }
        guard events.count == count else { return nil }
        return (events, start + length)
    }

    private func saveQuarantine(_ bytes: [UInt8], from segment: String, offset: Int) {
        let folder = directory + "/quarantine"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/\(segment)-at-\(offset).bad"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        log("spool: \(bytes.count) corrupt or torn bytes in \(segment) at offset \(offset) moved to \(path)")
    }

    private func rotate() throws {
        sealActiveSegment()
        let name = String(format: "segment-%016llu.spool", nextSegmentNumber)
        nextSegmentNumber += 1
        let descriptor = open(directory + "/" + name, O_CREAT | O_WRONLY | O_APPEND, 0o644)
        guard descriptor >= 0 else {
            throw RecorderError(.spool, "cannot create \(directory)/\(name): \(String(cString: strerror(errno)))")
        }
        activeDescriptor = descriptor
        activeName = name
        activeSize = 0
    }

    /// Deletes the oldest sealed segments while the spool is over its cap; returns the events dropped.
    private func enforceCapacity() throws -> Int {
        var dropped = 0
        var total = totalBytes
        for name in sealedSegments() where total > capacityBytes {
            let path = directory + "/" + name
            let size = fileSize(path)
            let count = countEvents(path)
            unlink(path)
            total -= size
            dropped += count
            log("spool: over its \(capacityBytes)-byte cap; dropped the oldest segment \(name) (\(count) events)")
        }
        if total > capacityBytes, activeDescriptor >= 0 {
            // A single active segment larger than the cap: start again with an empty one.
            if let name = activeName {
                let count = countEvents(directory + "/" + name)
                sealActiveSegment()
                unlink(directory + "/" + name)
                dropped += count
                log("spool: over its \(capacityBytes)-byte cap; dropped the segment \(name) (\(count) events)")
            }
        }
        return dropped
    }

    private func countEvents(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        let bytes = [UInt8](data)
        var position = 0
        var count = 0
        while position + Self.headerSize <= bytes.count, bytes[position...].starts(with: Self.magic) {
            count += Int(readLittleEndian(bytes, position + 8))
            position += Self.headerSize + Int(readLittleEndian(bytes, position + 4))
        }
        return count
    }

    private func segmentNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("segment-") && $0.hasSuffix(".spool") }
            .sorted()
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    private func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        Swift.withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private func readLittleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}

/// The C library's close(2), reachable from inside `Spool`, whose own `close()` shadows it.
private func closeFileDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
