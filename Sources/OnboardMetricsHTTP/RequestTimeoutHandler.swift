import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Tracks where a connection is in its request and closes it when that phase runs too long.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// Waiting for the next request (idle limit).
        case idle
        /// Bytes of a request head have arrived (header limit).
        case head
        /// The head is complete; the body is being read (body limit).
        case body
        /// The request is read; the server is answering (no limit).
        case answering
    }

    private let timeouts: ConnectionTimeouts
    private var phase = Phase.idle
    private var deadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(timeouts: ConnectionTimeouts) {
        self.timeouts = timeouts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        try? context.pipeline.syncOperations.addHandler(FirstByteHandler(owner: self), position: .first)
        if context.channel.isActive { enter(.idle) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        enter(.idle)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: enter(.body)
        case .body: break
        case .end: enter(.answering)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), phase == .answering { enter(.idle) }
        context.write(data, promise: promise)
    }

    /// Bytes arrived (from ``FirstByteHandler``): the start of a request head when idle.
    fileprivate func bytesArrived() {
        if phase == .idle { enter(.head) }
    }

    private func enter(_ next: Phase) {
        phase = next
        deadline?.cancel()
        deadline = nil
        guard let context else { return }
        let limit: TimeAmount
        switch next {
        case .idle: limit = timeouts.idle
        case .head: limit = timeouts.header
        case .body: limit = timeouts.body
        case .answering: return
        }
        deadline = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: limit) { [weak self] in
            guard let self, self.phase == next else { return }
            self.context?.close(promise: nil)
        }
    }
}

/// Sits before the HTTP decoder and tells its owner that bytes arrived.
private final class FirstByteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var owner: RequestTimeoutHandler?

    init(owner: RequestTimeoutHandler) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived()
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RequestTimeoutHandler: Sendable {}
