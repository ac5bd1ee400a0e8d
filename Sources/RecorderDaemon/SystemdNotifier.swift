import CSystemd
import Foundation

/// Messages to the service manager (`sd_notify`): READY=1, STATUS=…, WATCHDOG=1, STOPPING=1.
/// A no-op when not started by systemd (no `NOTIFY_SOCKET`). The transport is injectable so the
/// watchdog logic can be tested in-process; the executable uses libsystemd.
public struct SystemdNotifier: Sendable {
    let send: @Sendable (String) -> Void

    public init(send: @escaping @Sendable (String) -> Void) {
        self.send = send
    }

    /// libsystemd's `sd_notify`, to the socket in `NOTIFY_SOCKET`.
    public static let system = SystemdNotifier { message in _ = sd_notify(0, message) }

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
