import NIOCore
import RecorderModel
import RecorderRuntime

/// The way other threads (request tasks, task runs' queues, devices' sampling threads) hand work
/// to the control server's event loop: open until the server shuts the loop down, closed after.
///
/// NIO reports work scheduled from outside on a loop that has shut down ("Cannot schedule tasks
/// on an EventLoop that has already shut down", a trap with `SWIFTNIO_STRICT`), and a request
/// task, a step answered on a run's queue or a live stream's delivery can still be on its way
/// when the daemon stops. Work through a closed gate is dropped: its connection is closed by then.
/// A channel operation from outside the loop (`writeAndFlush`, `close`, firing an event) is itself
/// such a hand-off, so it goes through `execute` too (one hop either way).
/// Bridge (run queues, tasks → the control event loop): replies and live records are written by
/// the loop that owns the channel, and nothing may reach the loop after it shut down.
final class EventLoopGate: Sendable {
    /// A pthread lock (`LockedValue`), which ThreadSanitizer sees, unlike `Mutex`'s futex.
    private let open = LockedValue(true)

    init() {}

    /// Runs `body` on `eventLoop` later; false, and `body` dropped, once closed (from the loop
    /// itself always taken: the loop is still running then).
    @discardableResult
    func execute(on eventLoop: any EventLoop, _ body: @escaping @Sendable () -> Void) -> Bool {
        if eventLoop.inEventLoop {
            eventLoop.execute(body)
            return true
        }
        // Held while scheduling: `close` cannot slip in between the check and NIO taking the work.
        return open.withLock { isOpen in
            guard isOpen else { return false }
            eventLoop.execute(body)
            return true
        }
    }

    /// Whether work is still taken.
    var isOpen: Bool { open.withLock { $0 } }

    /// Refuses all later work; returns once no `execute` is handing work over. Call before
    /// shutting the loop down.
    func close() {
        open.withLock { $0 = false }
    }
}
