import FoundationEssentials
import RecorderModel

/// A task run `TaskRunRegistry.start` began: its UUID, its directory, and the async actions that
/// could not start (also in its task result as error results).
public struct StartedTaskRun: Sendable, Equatable {
    public var taskRunUUID: UUID
    public var runDirectory: String
    public var errors: [ErrorResult]

    public init(taskRunUUID: UUID, runDirectory: String, errors: [ErrorResult] = []) {
        self.taskRunUUID = taskRunUUID
        self.runDirectory = runDirectory
        self.errors = errors
    }
}
