import Glibc
import RecorderRuntime

/// Waits for any process (not only a child of the test: recorderd's services process) to end,
/// through a pidfd that polls readable when it does: an event, no polling interval.
public enum ProcessEnd {
    /// True once `pid` has ended (a zombie not yet reaped counts), false when `timeout` seconds
    /// pass first.
    public static func await(_ pid: Int32, timeout: Double) async throws -> Bool {
        try await offPool {
            let descriptor = SystemCall.processDescriptor(pid)
            // No such process: it has ended (and was reaped).
            guard descriptor >= 0 else { return errno == ESRCH }
            defer { close(descriptor) }
            var p = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let deadline = Deadline(seconds: timeout)
            while true {
                let left = deadline.remaining
                let ready = poll(&p, 1, Int32(max(0, min(left * 1000, 60_000)).rounded(.up)))
                if ready > 0 { return true }
                if ready < 0, errno == EINTR { continue }
                if left <= 0 { return false }
            }
        }
    }
}
