import NIOCore

/// The end of a connection's pipeline: hands each framed line to its `ControlConnection`.
final class ControlChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    let connection: ControlConnection

    init(connection: ControlConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var line = unwrapInboundIn(data)
        // Accept CRLF line ends.
        if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        if line.readableBytes == 0 { return }
        connection.linesContinuation.yield(line)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { connection.writable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is ByteToMessageDecoderError.PayloadTooLargeError {
            connection.refuseOversizedLine()
        } else if connection.isRefused {
            // The decoder reports every chunk after the over-long line; the input is being discarded.
            return
        } else {
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelEvent, case .inputClosed = event as! ChannelEvent {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
