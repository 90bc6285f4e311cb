import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw TCP client on loopback for the servers' connection tests: sends a few bytes at a time,
/// notices the server closing, and can come from any 127.x.y.z address (Linux answers the whole
/// 127/8 on loopback), so one test can be several clients.
final class LoopbackClient {
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    let socket: Int32

    /// Connects to 127.0.0.1:`port` from `source` (any port).
    init(port: Int, from source: String = "127.0.0.1") throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Refused(description: "socket: errno \(errno)") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            let code = errno
            close(socket)
            throw Refused(description: "connect from \(source): errno \(code)")
        }
        var wait = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(socket) }

    /// Sends `text`; false once the connection is gone.
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// What has arrived, without waiting: the bytes, and whether the server has closed.
    func pending() -> (text: String, closed: Bool) {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            let closed = count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return (String(decoding: received, as: UTF8.self), closed)
        }
    }

    /// Of `clients`, how many the server has closed and how many of those after a 503, polled
    /// until `closed` of them are (or `limit` seconds pass), then for `settle` seconds more: a
    /// loaded server may take a while to accept what the kernel queued for it.
    static func closedCount(
        of clients: [LoopbackClient], expecting closed: Int, limit: TimeInterval = 15, settle: TimeInterval = 0.5
    ) -> (closed: Int, refused503: Int) {
        var texts = [String](repeating: "", count: clients.count)
        var done = [Bool](repeating: false, count: clients.count)
        let started = Date()
        var settled: Date?
        while Date().timeIntervalSince(started) < limit {
            for index in clients.indices where !done[index] {
                let (text, isClosed) = clients[index].pending()
                texts[index] += text
                done[index] = isClosed
            }
            if settled == nil, done.filter({ $0 }).count >= closed { settled = Date() }
            if let settled, Date().timeIntervalSince(settled) >= settle { break }
            usleep(50_000)
        }
        let refused = clients.indices.filter { done[$0] && status(of: texts[$0]) == 503 }.count
        return (done.filter { $0 }.count, refused)
    }

    /// Waits up to 0.2 s for the server; true once it has closed the connection.
    func closedByServer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(socket, &buffer, buffer.count, 0)
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
        return false
    }

    /// Sends `dribble` one character every `interval` seconds (then nothing) until the server
    /// closes the connection; returns the seconds that took, or nil after `limit`.
    func secondsUntilClosed(dribble: String, interval: TimeInterval = 0.2, limit: TimeInterval = 15) -> Double? {
        let started = Date()
        var pending = Array(dribble)
        var lastSend = Date.distantPast
        while Date().timeIntervalSince(started) < limit {
            if !pending.isEmpty, Date().timeIntervalSince(lastSend) >= interval {
                if !send(String(pending.removeFirst())) { return Date().timeIntervalSince(started) }
                lastSend = Date()
            }
            if closedByServer() { return Date().timeIntervalSince(started) }
        }
        return nil
    }

    /// Sends `request` and reads until the answer is complete by its Content-Length (the
    /// connection may stay open), the server closes, or `limit` seconds pass; returns what arrived.
    func exchange(_ request: String, limit: TimeInterval = 5) -> String {
        guard send(request) else { return "" }
        let started = Date()
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(started) < limit {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                break
            }
            received += buffer[0..<count]
            if Self.isComplete(String(decoding: received, as: UTF8.self)) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// `GET path` over a connection of its own from `source`: the answer's status, or 0 when none came.
    static func status(port: Int, path: String, from source: String, limit: TimeInterval = 5) -> Int {
        guard let client = try? LoopbackClient(port: port, from: source) else { return 0 }
        let answer = client.exchange(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", limit: limit)
        return Self.status(of: answer)
    }

    /// The status code of an HTTP/1.1 answer's first line; 0 for anything else.
    static func status(of answer: String) -> Int {
        let parts = answer.prefix { $0 != "\r" }.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return 0 }
        return Int(parts[1]) ?? 0
    }

    private static func isComplete(_ text: String) -> Bool {
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }
}
