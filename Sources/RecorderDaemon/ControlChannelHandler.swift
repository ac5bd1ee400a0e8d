import Logging
import NIOCore
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// A connection's pipeline handler: frames request lines, applies the flow control of
/// `ControlConnectionState` (its decisions; this type only carries them out) and hands each line
/// to its `ControlConnection`. Lives on the connection's event loop, as NIO handlers do.
final class ControlChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Sent through the pipeline by the request loop when a request has been answered.
    struct RequestAnswered: Sendable {}

    /// Seconds a request line may take from its first byte to its newline.
    /// How long a request line may take from its first byte to its newline.
    let lineTimeout: TimeAmount

    let connection: ControlConnection
    let budget: InputBudget
    let logger: Logger
    private var state = ControlConnectionState()
    /// The unfinished line (bytes after the last newline).
    private var partial: ByteBuffer?
    private var lines = CircularBuffer<ByteBuffer>()
    private var queuedBytes = 0
    /// Bytes charged to the shared input budget (unfinished line and queued lines).
    private var charged = 0
    private var lineTimer: Scheduled<Void>?
    private var unwritableTimer: Scheduled<Void>?

    init(connection: ControlConnection, budget: InputBudget, lineTimeout: TimeAmount = .seconds(10), logger: Logger) {
        self.connection = connection
        self.budget = budget
        self.lineTimeout = lineTimeout
        self.logger = logger
    }

    // MARK: Input

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard !state.isRefused, !state.isClosed else { return }
        var framed = 0
        while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            var piece = buffer.readSlice(length: newline - buffer.readerIndex)!
            buffer.moveReaderIndex(forwardBy: 1)
            var line: ByteBuffer
            if var started = partial {
                started.writeBuffer(&piece)
                line = started
                partial = nil
                cancelLineTimer()
            } else {
                line = piece
            }
            guard line.readableBytes <= ControlLine.maximumLength else { return refuseOversizedLine(context: context) }
            // Accept CRLF line ends; skip empty lines.
            if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") {
                line.moveWriterIndex(to: line.writerIndex - 1)
            }
            if line.readableBytes == 0 { continue }
            queuedBytes += line.readableBytes
            lines.append(line)
            framed += 1
        }
        if buffer.readableBytes > 0 {
            if partial == nil {
                // A fresh buffer: an unfinished line keeps only its own bytes alive.
                var started = context.channel.allocator.buffer(capacity: buffer.readableBytes)
                started.writeBuffer(&buffer)
                partial = started
                startLineTimer(context: context)
            } else {
                partial!.writeBuffer(&buffer)
            }
            if partial!.readableBytes > ControlLine.maximumLength { return refuseOversizedLine(context: context) }
        }
        guard recharge() else {
            return run(state.refuse(RPCError(
                .requestTooLarge,
                "recorderd holds \(DaemonLimits.inputBudget >> 20) MiB of unfinished requests from all clients; closing the connection")), context: context)
        }
        if framed > 0 { run(state.linesFramed(framed), context: context) }
    }

    func refuseOversizedLine(context: ChannelHandlerContext) {
        run(state.refuse(RPCError(.requestTooLarge, "request line longer than \(ControlLine.maximumLength >> 20) MiB; closing the connection")), context: context)
    }

    /// Charges what this connection holds to the shared budget; false when that overdraws it.
    func recharge() -> Bool {
        let holding = (partial?.readableBytes ?? 0) + queuedBytes
        let delta = holding - charged
        charged = holding
        return budget.charge(delta)
    }

    func startLineTimer(context: ChannelHandlerContext) {
        cancelLineTimer()
        lineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: lineTimeout) {
            self.lineTimer = nil
            guard self.partial != nil else { return }
            self.run(self.state.refuse(RPCError(.requestTooLarge, "request line not finished within \(NumberRange.format(Double(self.lineTimeout.nanoseconds) / 1e9)) s; closing the connection")), context: context)
        }
    }

    func cancelLineTimer() {
        lineTimer?.cancel()
        lineTimer = nil
    }

    func read(context: ChannelHandlerContext) {
        run(state.readRequested(), context: context)
    }

    // MARK: Output

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data).readableBytes
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenComplete { _ in self.state.outputWritten(bytes) }
        context.write(data, promise: written)
        run(state.outputQueued(bytes), context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        run(state.writabilityChanged(isWritable: writable), context: context)
        if writable { connection.writable() }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Events

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RequestAnswered {
            run(state.requestAnswered(), context: context)
            return
        }
        if let channelEvent = event as? ChannelEvent, case .inputClosed = channelEvent {
            run(state.inputEnded(), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.closed()
        cancelLineTimer()
        unwritableTimer?.cancel()
        unwritableTimer = nil
        partial = nil
        lines.removeAll()
        queuedBytes = 0
        _ = recharge()
        connection.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Carrying out

    func run(_ actions: [ControlConnectionState.Action], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case .deliverLine:
                guard let line = lines.popFirst() else { continue }
                queuedBytes -= line.readableBytes
                _ = recharge()
                connection.deliver(line)
            case .read:
                context.read()
            case .startUnwritableTimer:
                unwritableTimer?.cancel()
                unwritableTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(Int64(DaemonLimits.unwritableTimeout))) {
                    self.unwritableTimer = nil
                    self.run(self.state.unwritableTimerFired(timeout: DaemonLimits.unwritableTimeout), context: context)
                }
            case .cancelUnwritableTimer:
                unwritableTimer?.cancel()
                unwritableTimer = nil
            case .refuse(let error):
                cancelLineTimer()
                partial = nil
                lines.removeAll()
                queuedBytes = 0
                _ = recharge()
                connection.refuse(error)
            case .close(let reason):
                if let reason { logger.warning("control connection closed", metadata: ["reason": "\(reason)"]) }
                context.close(promise: nil)
            }
        }
    }
}
