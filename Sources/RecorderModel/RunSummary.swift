import FoundationEssentials
import Glibc

/// One run of the data directory, as `runs.list` and `runs.get` show it: its manifest's
/// identity and status, and totals over its recorders.
public struct RunSummary: Sendable, Codable, Equatable {
    public var taskIdentifier: String
    public var taskRunUUID: UUID
    public var status: TaskRunStatus
    public var startDate: Date
    public var endDate: Date?
    /// Seconds from start to end (nil while recording or when the run never ended).
    public var duration: Double?
    /// The run's directory (absolute).
    public var runDirectory: String
    /// Recorders with a file result, and recorders that ended with an error result.
    public var recorders: Int
    public var failedRecorders: Int
    /// Samples (records of sensor data) over all file results.
    public var samples: Int
    public var droppedSamples: Int
    public var gapCount: Int
    /// Bytes of the run's files on disk.
    public var sizeBytes: Int64

    /// The most summaries one listing of runs returns (`runs.list`'s `limit`).
    public static let largestPage = 1000

    public init(taskIdentifier: String, taskRunUUID: UUID, status: TaskRunStatus, startDate: Date, endDate: Date?, duration: Double?,
                runDirectory: String, recorders: Int, failedRecorders: Int, samples: Int, droppedSamples: Int, gapCount: Int, sizeBytes: Int64) {
        self.taskIdentifier = taskIdentifier
        self.taskRunUUID = taskRunUUID
        self.status = status
        self.startDate = startDate
        self.endDate = endDate
        self.duration = duration
        self.runDirectory = runDirectory
        self.recorders = recorders
        self.failedRecorders = failedRecorders
        self.samples = samples
        self.droppedSamples = droppedSamples
        self.gapCount = gapCount
        self.sizeBytes = sizeBytes
    }

    /// The summary of `result`, stored in `runDirectory` taking `sizeBytes` on disk.
    public init(_ result: TaskResult, runDirectory: String, sizeBytes: Int64) {
        let files = result.asyncResults.compactMap(\.file)
        self.init(taskIdentifier: result.taskIdentifier, taskRunUUID: result.taskRunUUID, status: result.status,
                  startDate: result.startDate, endDate: result.endDate,
                  duration: result.endDate.map { max(0, $0.timeIntervalSince(result.startDate)) }, runDirectory: runDirectory,
                  recorders: files.count, failedRecorders: result.asyncResults.count - files.count,
                  samples: Self.total(files.map(\.sampleCount)),
                  droppedSamples: Self.total(files.map(\.droppedSamples)),
                  gapCount: Self.total(files.map(\.gapCount)), sizeBytes: sizeBytes)
    }

    /// The sum, saturating (a manifest is data from disk: its counts are not trusted to be small).
    static func total(_ counts: [Int]) -> Int {
        counts.reduce(0) { sum, count in
            let (r, overflow) = sum.addingReportingOverflow(max(0, count))
            return overflow ? .max : r
        }
    }
}
