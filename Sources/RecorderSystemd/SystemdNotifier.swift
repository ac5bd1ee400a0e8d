import CSystemd
import Dispatch
import FoundationEssentials
import Glibc
import RecorderRuntime
import Synchronization

/// Messages to the service manager (`sd_notify`): READY=1, STATUS=…, WATCHDOG=1, STOPPING=1.
/// A no-op when not started by systemd (no `NOTIFY_SOCKET`). The transport is injectable so the
/// watchdog logic can be tested in-process; the executable uses libsystemd.
public struct SystemdNotifier: Sendable {
    package let send: @Sendable (String) -> Void
    let flushTransport: @Sendable (Double) async -> Void

    public init(send: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable (Double) async -> Void = { _ in }) {
        self.send = send
        flushTransport = flush
    }

    /// libsystemd's `sd_notify`, to the socket in `NOTIFY_SOCKET`, sent from a queue of its own:
    /// `sd_notify` blocks when the manager's socket is full, and it is called from async code
    /// (a notify socket nobody read once stalled both cooperative threads, and with them every
    /// request). Past 64 unsent messages new ones are dropped: the manager is not reading.
    public static let system: SystemdNotifier = {
        let transport = NotifyTransport()
        return SystemdNotifier(send: transport.send, flush: transport.flush)
    }()

    /// Waits until the messages sent so far have left (at most `timeout` seconds).
    public func flush(timeout: Double = 1) async { await flushTransport(timeout) }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ status: String) { send("STATUS=\(status)") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    /// The watchdog timeout systemd set for this process (`WATCHDOG_USEC`), in seconds; nil when
    /// the watchdog is off.
    public static func watchdogTimeout() -> Double? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Double(usec) / 1e6
    }
}

/// `sd_notify` on a serial queue of its own, with a bound on the messages waiting.
final class NotifyTransport: Sendable {
    static let maximumPending = 64
    let queue = DispatchQueue(label: "recorderd.sd-notify")
    private let pending = Atomic<Int>(0)

    func send(_ message: String) {
        guard pending.wrappingAdd(1, ordering: .relaxed).newValue <= Self.maximumPending else {
            pending.wrappingSubtract(1, ordering: .relaxed)
            return
        }
        queue.async { [self] in
            _ = sd_notify(0, message)
            pending.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    func flush(timeout: Double) async {
        let sent = OneShotEvent()
        queue.async { sent.signal() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { sent.signal() }
        await sent.wait()
    }
}
