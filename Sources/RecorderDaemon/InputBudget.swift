import RecorderConfiguration
import RecorderModel
import Synchronization

/// The bytes of unfinished and queued request lines all control connections hold together,
/// against `DaemonLimits.inputBudget`: many connections each sending most of a long line cannot
/// add up to more memory than this.
final class InputBudget: Sendable {
    let limit: Int
    private let held = Atomic<Int>(0)

    init(limit: Int = DaemonLimits.inputBudget) {
        self.limit = limit
    }

    /// Bytes held now.
    var total: Int { held.load(ordering: .relaxed) }

    /// Adds `delta` bytes (negative: released); false when an increase overdraws the budget (the
    /// caller then refuses the line and releases what it holds).
    func charge(_ delta: Int) -> Bool {
        guard delta != 0 else { return true }
        let now = held.wrappingAdd(delta, ordering: .relaxed).newValue
        return delta < 0 || now <= limit
    }
}
