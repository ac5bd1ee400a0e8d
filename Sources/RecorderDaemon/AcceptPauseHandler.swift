import Foundation
import NIOCore

/// Pauses accepting on the listening socket for a while when an accept fails for want of
/// descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), instead of retrying at once.
///
/// NIO's `AcceptBackoffHandler` does not help here: an accept that fails leaves the channel's
/// read pending, so the selector keeps reporting the socket readable and the event loop spins at
/// 100 % (seen: 14,000 failed `accept4` a second). Turning auto-read off unregisters the socket;
/// turning it on again later retries. Connections wait in the backlog meanwhile.
final class AcceptPauseHandler: ChannelInboundHandler {
    typealias InboundIn = Any

    let pause: TimeAmount
    /// Told of each failure (the server logs them, rate-limited).
    let onFailure: (IOError) -> Void
    private var resume: Scheduled<Void>?

    init(pause: TimeAmount = .milliseconds(250), onFailure: @escaping (IOError) -> Void) {
        self.pause = pause
        self.onFailure = onFailure
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        onFailure(error)
        guard resume == nil, let options = context.channel.syncOptions else { return }
        try? options.setOption(.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            self.resume = nil
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }
}
