/// Which node of the broker the link connects to next, and after how long (rules, no I/O): a
/// connection that fails or ends moves the link to the next node at once — a node that died, or
/// refused us — and round again to the first; only once every node failed in a row does it wait,
/// 1, 4, 9, 16, 25, then 30 s a round (libmosquitto's own back-off). A connection the broker
/// accepted and kept for `stableAfter` seconds starts the count again; one dropped sooner counts
/// as a failure (a cluster electing a new leader after a node died closed fresh connections on
/// the others for a second: without this the link went round the nodes a hundred times).
/// With one node: 1, 4, 9 … s before each attempt on it.
struct MQTTNodeRotation: Equatable {
    /// How many nodes there are (1 or more).
    let count: Int
    /// Seconds an accepted connection must last to start the count again.
    let stableAfter: Double
    /// The node connected to, or tried, now.
    private(set) var current = 0
    /// Attempts that failed since a connection was last accepted.
    private(set) var failures = 0

    init(count: Int, stableAfter: Double = 10) {
        self.count = max(1, count)
        self.stableAfter = stableAfter
    }

    /// The connection on `current` ended or could not be made (`wasAccepted`: the broker had
    /// accepted it first; `lasted`: seconds since the attempt began). The node to try next, and
    /// the seconds to wait before.
    mutating func ended(wasAccepted: Bool, lasted: Double = .infinity) -> (node: Int, delay: Double) {
        if wasAccepted, lasted >= stableAfter { failures = 0 }
        failures += 1
        current = (current + 1) % count
        guard failures % count == 0 else { return (current, 0) }
        let round = failures / count
        return (current, Double(min(30, round * round)))
    }
}
