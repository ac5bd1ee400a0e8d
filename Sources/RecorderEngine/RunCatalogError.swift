/// Why a request about the data directory's runs (`runs.list`, `runs.get`, `runs.delete`) failed.
public enum RunCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A parameter out of its range or malformed: the message names it.
    case invalidParameter(String)
    /// Not a UUID or a prefix of one.
    case invalidRun(String)
    /// No run matches.
    case unknownRun(String)
    /// More than one run matches the prefix.
    case ambiguousRun(String, matches: [String])
    /// The run is recording.
    case runInUse(String)
    /// The run's manifest cannot be read, or its files cannot be removed.
    case storage(String)

    public var description: String {
        switch self {
        case .invalidParameter(let message): return message
        case .invalidRun(let run):
            return "run \(run.debugDescription): expected a task-run UUID or a prefix of one (hexadecimal digits and dashes)"
        case .unknownRun(let run): return "no run \(run) in the data directory"
        case .ambiguousRun(let run, let matches):
            return "run \(run) is ambiguous: \(matches.count) runs begin with it (\(matches.prefix(5).joined(separator: ", "))\(matches.count > 5 ? ", …" : ""))"
        case .runInUse(let run): return "run \(run) is recording: finish or cancel it first"
        case .storage(let message): return message
        }
    }
}
