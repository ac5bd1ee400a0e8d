/// When the services process (the web page, the fleet link) is started again after it ended:
/// at once the first time, then after a delay that doubles up to a minute while it keeps ending
/// early, and back to the first delay once a run of it lasted a minute. Pure: the lifetimes are
/// passed in; `ServicesProcess` carries the actions out.
public struct ServicesRestartRules: Sendable, Equatable {
    /// What the supervisor does next.
    public enum Action: Sendable, Equatable {
        /// Start the process after `delay` seconds (0: now).
        case start(after: Double)
        /// The daemon is stopping: start nothing more.
        case stop
    }

    /// The first delay after an early end.
    public let firstDelay: Double
    /// The longest delay.
    public let longestDelay: Double
    /// A run at least this long is not an early end: the delay starts over.
    public let stableLifetime: Double
    private var nextDelay: Double
    private var stopping = false

    public init(firstDelay: Double = 1, longestDelay: Double = 60, stableLifetime: Double = 60) {
        self.firstDelay = firstDelay
        self.longestDelay = longestDelay
        self.stableLifetime = stableLifetime
        nextDelay = firstDelay
    }

    /// The first start.
    public func begin() -> Action { stopping ? .stop : .start(after: 0) }

    /// The process ended after running `lifetime` seconds.
    public mutating func ended(after lifetime: Double) -> Action {
        guard !stopping else { return .stop }
        if lifetime >= stableLifetime { nextDelay = firstDelay }
        let delay = nextDelay
        nextDelay = min(longestDelay, nextDelay * 2)
        return .start(after: delay)
    }

    /// The daemon stops: whatever ends next is not started again.
    public mutating func stop() -> Action {
        stopping = true
        return .stop
    }
}
