import RecorderModel

/// A run of the data directory as `RunCatalog.details` reads it: its summary and its manifest.
public struct StoredRun: Sendable, Equatable {
    public var summary: RunSummary
    public var taskResult: TaskResult

    public init(summary: RunSummary, taskResult: TaskResult) {
        self.summary = summary
        self.taskResult = taskResult
    }
}
