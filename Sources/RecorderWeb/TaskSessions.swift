import FoundationEssentials
import Glibc
import RecorderModel

/// Task runs asked for by a POST (with its CSRF check) and not yet joined by their WebSocket:
/// each a random id, taken once, forgotten after `lifetime` seconds.
actor TaskSessions {
    struct Pending {
        var definition: TaskDefinition
        var created: ContinuousClock.Instant
    }

    static let lifetime: Duration = .seconds(60)
    /// At most this many waiting at once (a page that posts without opening the socket).
    static let maximumPending = 16
    private var pending: [String: Pending] = [:]
    private let clock = ContinuousClock()

    /// Keeps `definition` for a WebSocket to run; nil when too many are waiting.
    func create(_ definition: TaskDefinition) -> String? {
        expire()
        guard pending.count < Self.maximumPending else { return nil }
        let id = WebAccess.randomToken()
        pending[id] = Pending(definition: definition, created: clock.now)
        return id
    }

    /// The definition kept under `id`, once.
    func take(_ id: String) -> TaskDefinition? {
        expire()
        return pending.removeValue(forKey: id)?.definition
    }

    private func expire() {
        let now = clock.now
        pending = pending.filter { now - $0.value.created < Self.lifetime }
    }
}
