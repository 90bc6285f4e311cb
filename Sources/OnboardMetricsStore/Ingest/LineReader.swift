#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file line by line through one large buffer, handing each line to the caller as a view
/// into that buffer (valid only during the call), so reading costs no allocation per line.
///
/// Lines end with `\n`; a `\r` before it is dropped; a last line without `\n` still counts. A line
/// longer than ``maximumLineLength`` is not buffered but skipped and reported as `.tooLong`.
package struct LineReader {
    /// One line, as handed to the body.
    package enum Line {
        /// The line's bytes, without the line end.
        case text(UnsafeBufferPointer<UInt8>)
        /// The line was longer than the limit; its length in bytes.
        case tooLong(length: Int)
    }

    /// The file to read.
    package var path: String
    /// Bytes read per system call.
    package var chunkSize = 4 << 20
    /// Longest line kept; longer ones are skipped.
    package var maximumLineLength = 16 << 20

    package init(path: String) {
        self.path = path
    }

    /// Calls `body(number, line, offset)` for each line in order: `number` counts from 1 and
    /// `offset` is how many bytes of the file have been consumed once the line is. Stops early
    /// when `body` returns false.
    /// - Throws: ``IngestError`` `.io` when the file cannot be opened or read; whatever `body` throws.
    package func forEachLine(_ body: (_ number: Int, _ line: Line, _ offset: Int) throws -> Bool) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw IngestError(.io, "cannot open \(path): \(Self.systemError())") }
        defer { close(descriptor) }
        var capacity = max(chunkSize, 1)
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var start = 0
        var end = 0
        var number = 0
        var offset = 0
        // Bytes of an over-long line already thrown away.
        var skipped = 0
        var atEnd = false
        while true {
            while start < end, let found = memchr(buffer + start, 10, end - start) {
                let newline = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
                number += 1
                let length = newline - start
                offset += skipped + length + 1
                let line = skipped > 0 ? Line.tooLong(length: skipped + length) : Self.text(buffer + start, length)
                skipped = 0
                start = newline + 1
                guard try body(number, line, offset) else { return }
            }
            if atEnd {
                if start < end || skipped > 0 {
                    number += 1
                    offset += skipped + end - start
                    let line =
                        skipped > 0
                        ? Line.tooLong(length: skipped + end - start) : Self.text(buffer + start, end - start)
                    _ = try body(number, line, offset)
                }
                return
            }
            let remainder = end - start
            if remainder > 0, start > 0 { memmove(buffer, buffer + start, remainder) }
            start = 0
            end = remainder
            if end == capacity {
                if capacity < maximumLineLength {
                    // A line longer than the buffer: grow it rather than split the line.
                    let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                    larger.update(from: buffer, count: end)
                    buffer.deallocate()
                    buffer = larger
                    capacity *= 2
                } else {
                    skipped += end
                    end = 0
                }
            }
            let count = read(descriptor, buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw IngestError(.io, "cannot read \(path): \(Self.systemError())")
            }
            if count == 0 { atEnd = true } else { end += count }
        }
    }

    private static func text(_ start: UnsafeMutablePointer<UInt8>, _ length: Int) -> Line {
        var length = length
        if length > 0, start[length - 1] == 13 { length -= 1 }
        return .text(UnsafeBufferPointer(start: start, count: length))
    }

    private static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
