import FoundationEssentials

/// A run `TaskRunRegistry.deleteRun` removed, and the bytes its files took.
public struct DeletedRun: Sendable, Equatable {
    public var taskRunUUID: UUID
    public var runDirectory: String
    public var freedBytes: Int64

    public init(taskRunUUID: UUID, runDirectory: String, freedBytes: Int64) {
        self.taskRunUUID = taskRunUUID
        self.runDirectory = runDirectory
        self.freedBytes = freedBytes
    }
}
