import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// Every task-run UUID the data directory holds, in any state (recording, finished, cancelled
/// with files kept, interrupted, abandoned), plus those created since: a UUID that names any of
/// them is refused, so a run's directory and manifest can never be written over or deleted by
/// another run.
///
/// Built once from the directory names (`runs/<task>/<yyyyMMddTHHmmssZ>-<UUID>`) when the daemon
/// starts; a run removed from disk by hand stays known until the next start.
final class RunIndex: Sendable {
    private let known: LockedValue<Set<UUID>>

    init(runsDirectory: String) {
        known = LockedValue(Self.scan(runsDirectory: runsDirectory))
    }

    /// The UUIDs of the run directories under `runsDirectory`.
    static func scan(runsDirectory: String) -> Set<UUID> {
        Set(RunCatalog(runsDirectory: runsDirectory).entries().map(\.uuid))
    }

    /// The UUID at the end of a run directory's name.
    static func uuid(ofDirectory name: String) -> UUID? {
        guard name.utf8.count > 36 else { return nil }
        return UUID(uuidString: String(name.suffix(36)))
    }

    /// Claims `uuid` for a new run; false when a run with it exists (or existed) already.
    func claim(_ uuid: UUID) -> Bool {
        known.withLock { $0.insert(uuid).inserted }
    }

    /// Gives a claim back (the run was never created).
    func release(_ uuid: UUID) {
        _ = known.withLock { $0.remove(uuid) }
    }

    /// Runs known.
    var count: Int { known.withLock { $0.count } }
}
