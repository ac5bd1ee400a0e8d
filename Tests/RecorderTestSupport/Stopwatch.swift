/// Seconds elapsed on the monotonic clock since it was made (not the wall clock, which steps).
public struct Stopwatch: Sendable {
    private let start = ContinuousClock.now

    public init() {}

    /// Seconds since the stopwatch was made.
    public var seconds: Double {
        let elapsed = (ContinuousClock.now - start).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }
}
