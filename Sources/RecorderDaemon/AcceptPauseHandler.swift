import FoundationEssentials
import Glibc
import NIOCore
import RecorderEngine

/// Pauses accepting on the listening socket while recorderd's descriptor budget is spent, and for
/// a while when an accept fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS,
/// ENOMEM), instead of retrying at once. Connections wait in the backlog meanwhile; a client
/// whose connect finds the backlog full is refused by the kernel.
///
/// Every accepted connection, served or refused, counts against the budget until it closes, so
/// that connections can never take the descriptors the process itself needs (see
/// `DescriptorBudget`: running out kills the process). The listening channel reads one
/// connection at a time (`maxMessagesPerRead` 1), so the pause comes before the next accept.
///
/// NIO's `AcceptBackoffHandler` does not help with the failures: an accept that fails leaves the
/// channel's read pending, so the selector keeps reporting the socket readable and the event loop
/// spins at 100 % (seen: 14,000 failed `accept4` a second). Turning auto-read off unregisters the
/// socket; turning it on again later retries.
final class AcceptPauseHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel

    let pause: TimeAmount
    let descriptors: DescriptorBudget
    /// Told of each failure (the server logs them, rate-limited).
    let onFailure: (IOError) -> Void
    private var resume: Scheduled<Void>?

    init(pause: TimeAmount = .milliseconds(250), descriptors: DescriptorBudget, onFailure: @escaping (IOError) -> Void) {
        self.pause = pause
        self.descriptors = descriptors
        self.onFailure = onFailure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let descriptors = self.descriptors
        let left = descriptors.takeOpened()
        child.closeFuture.whenComplete { _ in descriptors.give(1) }
        if !left { pauseAccepting(context: context) }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        onFailure(error)
        pauseAccepting(context: context)
    }

    /// Stops accepting; tries again after `pause`, and keeps waiting while the budget is spent.
    private func pauseAccepting(context: ChannelHandlerContext) {
        guard resume == nil, let options = context.channel.syncOptions else { return }
        try? options.setOption(.autoRead, value: false)
        scheduleResume(context: context)
    }

    private func scheduleResume(context: ChannelHandlerContext) {
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            self.resume = nil
            guard self.descriptors.available > 0 else {
                self.scheduleResume(context: context)
                return
            }
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }
}
