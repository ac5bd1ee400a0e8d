import RecorderModel
import RecorderRuntime

/// How many WebSockets (live plots, task screens) the page keeps open at once: each holds a
/// control connection of the daemon's, and the page must not use up the connections recorderctl
/// and other clients need (`limits.connections`).
struct SocketBudget: Sendable {
    let limit: Int
    private let open = LockedValue(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place; false when all are taken.
    func take() -> Bool {
        open.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    func give() {
        open.withLock { $0 -= 1 }
    }

    /// Runs `body` holding a place, or sends `refused` when none is free.
    func withPlace(_ body: () async -> Void, refused: () async -> Void) async {
        guard take() else { return await refused() }
        defer { give() }
        await body()
    }
}
