import HummingbirdCore
import Logging
import NIOCore

/// A Hummingbird child channel behind the page's guards: a remote address holding
/// `ConnectionsPerAddress.limit` connections already is answered 503 and closed at once, and
/// every other connection's bytes pass `RequestGuardHandler` (head deadline and sizes) before
/// `base`'s HTTP decoding.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let limits: RequestFraming.Limits
    let perAddress: ConnectionsPerAddress

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        var refusal: (status: Int, reason: String)?
        if perAddress.open(address) {
            let perAddress = self.perAddress
            channel.closeFuture.whenComplete { _ in perAddress.close(address) }
        } else {
            if perAddress.shouldLogRefusal() {
                logger.notice("web page: connections refused", metadata: ["address": "\(address)", "reason": "\(perAddress.limit) connections from it already"])
            }
            refusal = (503, "too many connections from your address")
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestGuardHandler(limits: limits, refusal: refusal), position: .first)
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
