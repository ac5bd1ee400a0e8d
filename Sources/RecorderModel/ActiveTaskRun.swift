import FoundationEssentials
import Glibc

/// A task run in `daemon.status`.
public struct ActiveTaskRun: Sendable, Codable, Equatable {
    public var taskIdentifier: String
    public var taskRunUUID: UUID
    public var runDirectory: String
    public var currentStepPath: String?
    /// Recorders writing now.
    public var recording: [String]
    /// Recorders that stopped on a failure (disk full, I/O error); their error is in the result.
    public var failed: [String]?

    public init(taskIdentifier: String, taskRunUUID: UUID, runDirectory: String, currentStepPath: String?, recording: [String],
                failed: [String]? = nil) {
        self.taskIdentifier = taskIdentifier
        self.taskRunUUID = taskRunUUID
        self.runDirectory = runDirectory
        self.currentStepPath = currentStepPath
        self.recording = recording
        self.failed = failed
    }
}
