import Foundation

/// A point in time some seconds ahead on the monotonic clock, for tests that wait.
///
/// Not `Date()`: the wall clock steps (NTP on a VM moved it seconds at a time), and a wait
/// measured on it could time out at once or never.
public struct Deadline: Sendable {
    private let end: ContinuousClock.Instant

    /// `seconds` from now.
    public init(seconds: Double) {
        end = .now + .milliseconds(Int64((max(0, min(seconds, 86_400)) * 1000).rounded()))
    }

    /// Whether the deadline has passed.
    public var hasPassed: Bool { ContinuousClock.now >= end }

    /// Seconds until the deadline (0 once it has passed).
    public var remaining: Double {
        let left = ContinuousClock.now.duration(to: end).components
        return max(0, Double(left.seconds) + Double(left.attoseconds) * 1e-18)
    }
}
