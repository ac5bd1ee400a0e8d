import FoundationEssentials
import Glibc

/// A run that ended since recorderd started (`daemon.status`'s `recentlyEnded`): whoever looks
/// at the status now and then still learns of a run shorter than the look's interval, and how it
/// ended.
public struct EndedTaskRun: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID
    public var taskIdentifier: String
    /// finished, cancelled, interrupted or abandoned.
    public var status: TaskRunStatus
    /// When it ended (ISO 8601).
    public var ended: String

    /// How many `recentlyEnded` keeps (the newest).
    public static let kept = 32

    public init(taskRunUUID: UUID, taskIdentifier: String, status: TaskRunStatus, ended: String) {
        self.taskRunUUID = taskRunUUID
        self.taskIdentifier = taskIdentifier
        self.status = status
        self.ended = ended
    }
}
