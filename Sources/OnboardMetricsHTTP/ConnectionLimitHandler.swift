import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Takes a connection's place in its ``ConnectionLimiter`` when it opens and gives it back when it
/// closes; a connection that finds no place is answered 503 (`Connection: close`) and closed.
///
/// Trusting a proxy, each request head names its client (``ForwardedClient``): the connection's
/// place moves to that client, and a client over its cap gets the 503 instead of its request.
/// Before its first head a connection counts under its socket's peer, so a client that reaches
/// the server directly is capped as ever.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limiter: ConnectionLimiter
    private let trustingProxy: Bool
    /// The address the connection's place is held under; `nil` before it has one and once given back.
    private var holder: String?
    private var admitted = false
    /// Refused: whatever else the client sends is dropped until the connection is closed.
    private var refused = false
    /// Requests read whose answer has not ended: a 503 written meanwhile would land in the middle
    /// of an answer, so a refusal then only closes.
    private var unanswered = 0

    init(limiter: ConnectionLimiter, trustingProxy: Bool) {
        self.limiter = limiter
        self.trustingProxy = trustingProxy
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added to an open connection (not the way Hummingbird sets one up, but possible):
        // admitted on the next turn of the loop, not while the pipeline is being built.
        guard context.channel.isActive else { return }
        context.eventLoop.assumeIsolatedUnsafeUnchecked().execute { [weak self] in self?.admit(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        admit(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head(let head) = unwrapInboundIn(data) {
            if trustingProxy, let holder {
                let client = ForwardedClient.address(in: head.headerFields) ?? peer(context)
                if limiter.move(from: holder, to: client) {
                    self.holder = client
                } else {
                    refuse(context: context)
                    return
                }
            }
            unanswered += 1
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    private func admit(context: ChannelHandlerContext) {
        guard !admitted, context.channel.isActive else { return }
        admitted = true
        let client = peer(context)
        if limiter.open(client) {
            holder = client
        } else {
            refuse(context: context)
        }
    }

    private func peer(_ context: ChannelHandlerContext) -> String {
        context.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    private func refuse(context: ChannelHandlerContext) {
        refused = true
        if unanswered == 0 {
            let body = ByteBuffer(string: "too many connections from this address or in all; try again later\n")
            let head = HTTPResponse(
                status: .serviceUnavailable,
                headerFields: [
                    .contentType: "text/plain; charset=utf-8", .contentLength: String(body.readableBytes),
                    .connection: "close", .retryAfter: "1",
                ])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(promise: nil)
    }

    private func release() {
        guard let holder else { return }
        limiter.close(holder)
        self.holder = nil
    }
}

@available(*, unavailable)
extension ConnectionLimitHandler: Sendable {}
