import FoundationEssentials
import Glibc

/// Time as recorderd sees it: CLOCK_MONOTONIC seconds for records, wall-clock dates for results.
/// Injected so that state machines (orphan timeout) can be tested without waiting.
public protocol RecorderClock: Sendable {
    /// CLOCK_MONOTONIC seconds.
    func uptime() -> Double
    /// The wall-clock date.
    func now() -> Date
}

/// The system's clocks.
public struct SystemClock: RecorderClock {
    public init() {}

    public func uptime() -> Double { SystemClock.monotonicUptime() }

    public func now() -> Date { Date() }

    /// CLOCK_MONOTONIC in seconds.
    public static func monotonicUptime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
