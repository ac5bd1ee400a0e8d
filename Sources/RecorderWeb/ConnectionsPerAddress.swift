import RecorderRuntime

/// How many connections to the web page each remote address holds, capped: one client (a script
/// opening hundreds of connections) cannot take every place the page has. A pthread lock (see
/// `LockedValue`): connections open and close on the server's event loops.
final class ConnectionsPerAddress: Sendable {
    let limit: Int
    private let counts = LockedValue<[String: Int]>([:])
    /// When a refusal was last logged (CLOCK_MONOTONIC seconds): once a minute at most.
    private let lastLogged = LockedValue<Double>(-.infinity)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a connection from `address` in; false (not counted) when it holds `limit` already.
    func open(_ address: String) -> Bool {
        counts.withLock { c in
            guard c[address, default: 0] < limit else { return false }
            c[address, default: 0] += 1
            return true
        }
    }

    /// A connection counted in by `open` closed.
    func close(_ address: String) {
        counts.withLock { c in
            let n = c[address, default: 0] - 1
            c[address] = n > 0 ? n : nil
        }
    }

    /// Whether a refusal should be logged now (once a minute at most: a flood is one line).
    func shouldLogRefusal() -> Bool {
        let now = SystemClock.monotonicUptime()
        return lastLogged.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
    }

    /// Connections `address` holds now.
    func count(_ address: String) -> Int {
        counts.withLock { $0[address, default: 0] }
    }
}
