import NIOCore

/// The first handler of a web page connection: carries out `RequestFraming`'s rules on the bytes
/// before the HTTP decoder sees them — a late or oversized head is answered (408, 431, 413, 501)
/// and the connection closed.
///
/// Confined to its channel's event loop (a `ChannelHandler`; the deadline is scheduled there).
final class RequestGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var framing: RequestFraming
    private var deadline: Scheduled<Void>?
    private var refused = false
    /// Set for a connection refused as a whole (its address holds too many): answered once active.
    private let refusal: (status: Int, reason: String)?

    init(limits: RequestFraming.Limits, refusal: (status: Int, reason: String)? = nil) {
        framing = RequestFraming(limits: limits)
        self.refusal = refusal
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, let refusal { refuse(context, status: refusal.status, reason: refusal.reason) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if let refusal {
            refuse(context, status: refusal.status, reason: refusal.reason)
            return
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Refused: what still comes is read and dropped until the connection closes.
        if refused || refusal != nil { return }
        let buffer = unwrapInboundIn(data)
        let action = buffer.withUnsafeReadableBytes { framing.received($0) }
        switch action {
        case .forward(let change):
            switch change {
            case .keep: break
            case .start: startDeadline(context)
            case .cancel: cancelDeadline()
            }
            context.fireChannelRead(data)
        case .refuse(let status, let reason):
            refuse(context, status: status, reason: reason)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    private func startDeadline(_ context: ChannelHandlerContext) {
        cancelDeadline()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(framing.limits.headTimeout * 1e9))) {
            let (handler, context) = loopBound.value
            handler.deadline = nil
            if case .refuse(let status, let reason)? = handler.framing.deadlinePassed() {
                handler.refuse(context, status: status, reason: reason)
            }
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }

    /// Answers `status` (0: none) straight onto the socket and closes: output first, then, after
    /// `lingerSeconds` of reading and dropping what the client still sends, the whole connection
    /// (closing at once, with its bytes unread, can reset the connection and lose the answer on
    /// the way). A connection refused as a whole (its address holds its share) closes at once once
    /// the answer is written: lingering, a flood of them held the page's places two seconds each
    /// and a visitor queued behind them in the backlog waited 20 s; a client over its share may
    /// see a reset instead of the answer.
    private func refuse(_ context: ChannelHandlerContext, status: Int, reason: String) {
        cancelDeadline()
        guard !refused else { return }
        refused = true
        guard status > 0, context.channel.isActive else {
            context.close(promise: nil)
            return
        }
        let body = reason + "\n"
        let text = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text))).whenComplete { _ in
            let (handler, context) = loopBound.value
            guard handler.refusal == nil else {
                context.close(promise: nil)
                return
            }
            context.close(mode: .output, promise: nil)
            handler.deadline = context.eventLoop.scheduleTask(in: .seconds(Self.lingerSeconds)) {
                loopBound.value.1.close(promise: nil)
            }
        }
    }

    static let lingerSeconds: Int64 = 2
}
