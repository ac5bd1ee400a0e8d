import NIOCore
import RecorderModel
import RecorderProtocol

/// The pipeline of a connection over a limit: it sends one error line and closes.
final class RefusedConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let error: RPCError

    init(error: RPCError) {
        self.error = error
    }

    func channelActive(context: ChannelHandlerContext) {
        let bytes = JSONRPCEncoder.failure(id: .null, error: error)
        let channel = context.channel
        context.writeAndFlush(NIOAny(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in channel.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
