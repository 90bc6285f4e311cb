import NIOCore

/// Time limits on each collector connection, so a client that sends slowly (a byte a second)
/// cannot hold a connection, and with it server memory, indefinitely:
///
/// - header: from a request's first byte to its complete head;
/// - body: from the head to the end of the body;
/// - idle: a kept-alive connection with no request under way.
///
/// A connection over a limit is closed. Answering a request does not count against any of them.
package struct ConnectionTimeouts: Sendable {
    package var header: TimeAmount
    package var body: TimeAmount
    package var idle: TimeAmount

    package init(header: TimeAmount, body: TimeAmount, idle: TimeAmount) {
        self.header = header
        self.body = body
        self.idle = idle
    }

    /// The handlers for one connection: one after the HTTP decoder (it sees request heads and
    /// ends, and response ends) which puts, when it is added, a second one at the front of the
    /// pipeline (it sees the raw bytes, so a head that never completes is noticed too).
    package func handlers() -> [any RemovableChannelHandler] {
        [RequestTimeoutHandler(timeouts: self)]
    }
}
