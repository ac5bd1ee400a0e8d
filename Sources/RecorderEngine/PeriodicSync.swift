import FoundationEssentials
import Glibc
import RecorderRuntime

/// When a file writer next calls `fdatasync`: at most once per `interval`, only after writes.
/// Shared by the JSON-lines and WAV writers.
public struct PeriodicSync: Sendable {
    let interval: Double
    var dirty = false
    var lastSync: Double

    public init(interval: Double, now: Double = SystemClock.monotonicUptime()) {
        self.interval = interval
        lastSync = now
    }

    /// Notes a write.
    public mutating func wrote() { dirty = true }

    /// Syncs `fd` if written since the last sync and the interval has passed.
    public mutating func syncIfDue(_ fd: Int32, now: Double) {
        guard dirty, now - lastSync >= interval else { return }
        _ = fdatasync(fd)
        dirty = false
        lastSync = now
    }
}
