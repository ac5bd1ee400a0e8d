/// Whether to send WATCHDOG=1 now: only while the main loop answered and no recorder thread is
/// wedged. Pure; the clock and the observations are passed in.
public struct WatchdogPolicy: Sendable, Equatable {
    /// What the watchdog service does after a check.
    public enum Action: Sendable, Equatable {
        case ping
        /// Withhold the ping; `log` is true the first time for this reason (log once, not per tick).
        case withhold(reason: String, log: Bool)
    }

    /// A sampling thread silent for longer than this (and than twice its longest block) is wedged.
    public let minimumStall: Double
    private var lastReason: String?

    public init(minimumStall: Double = 5) {
        self.minimumStall = minimumStall
    }

    /// Decides from the stalled devices (name, seconds silent) seen by this check.
    public mutating func check(stalled: [(name: String, silentSeconds: Double)]) -> Action {
        guard !stalled.isEmpty else {
            lastReason = nil
            return .ping
        }
        let reason = "recorder thread wedged: " + stalled.map { "\($0.name) silent \(Int(saturating: $0.silentSeconds)) s" }.joined(separator: ", ")
        let names = stalled.map(\.name).joined(separator: ",")
        defer { lastReason = names }
        return .withhold(reason: reason, log: lastReason != names)
    }
}
