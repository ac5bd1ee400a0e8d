import FoundationEssentials
import RecorderModel

/// Which stored runs `RunCatalog.list` returns: filters (each optional) and one page of what
/// passes them, newest first.
public struct RunQuery: Sendable, Equatable {
    /// Only runs of this task.
    public var taskIdentifier: String?
    /// Only runs in this status.
    public var status: TaskRunStatus?
    /// Only runs that started at or after / before this ISO-8601 date (checked by `list`).
    public var since: String?
    public var until: String?
    /// At most this many runs (`limitRange`; default 100), after skipping `offset` (default 0).
    public var limit: Int?
    public var offset: Int?

    /// The page sizes a query may ask for.
    public static let limitRange = 1...RunSummary.largestPage

    public init(taskIdentifier: String? = nil, status: TaskRunStatus? = nil, since: String? = nil, until: String? = nil,
                limit: Int? = nil, offset: Int? = nil) {
        self.taskIdentifier = taskIdentifier
        self.status = status
        self.since = since
        self.until = until
        self.limit = limit
        self.offset = offset
    }
}
