/// Why a task-run request failed.
public enum TaskRunError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownTaskRun(String)
    case duplicateTaskRun(String)
    case invalidConfiguration(String)
    case stepOrder(String)
    case storage(String)
    case shuttingDown
    /// A limit of `DaemonLimits` was reached.
    case limitReached(String)

    public var description: String {
        switch self {
        case .unknownTaskRun(let uuid): return "unknown task run \(uuid)"
        case .duplicateTaskRun(let uuid): return "task run \(uuid) exists already"
        case .invalidConfiguration(let m), .stepOrder(let m), .storage(let m), .limitReached(let m): return m
        case .shuttingDown: return "recorderd is shutting down"
        }
    }
}
