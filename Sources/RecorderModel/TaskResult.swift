import FoundationEssentials
import Glibc
import RecorderJSON

/// The state of a task run, as written in `taskResult.json`.
public enum TaskRunStatus: String, Sendable, Codable, CaseIterable {
    case recording, finished, cancelled, interrupted, abandoned
}

/// One step of a task run's history.
public struct StepHistoryEntry: Sendable, Equatable, Codable {
    public var stepPath: String
    public var startDate: Date
    public var startUptime: Double
    public var endDate: Date?
    public var endUptime: Double?
    /// The answers sent with `step.finish`, in the order sent.
    public var results: [AnswerResult]?

    public init(stepPath: String, startDate: Date, startUptime: Double, endDate: Date? = nil, endUptime: Double? = nil,
                results: [AnswerResult]? = nil) {
        self.stepPath = stepPath
        self.startDate = startDate
        self.startUptime = startUptime
        self.endDate = endDate
        self.endUptime = endUptime
        self.results = results
    }
}

/// A file left by an async action.
public struct FileResult: Sendable, Equatable, Codable {
    public var type: String = "file"
    public var identifier: String
    public var relativePath: String
    public var contentType: String
    public var device: String?
    public var startDate: Date
    public var endDate: Date?
    public var startUptime: Double
    public var endUptime: Double?
    /// Data records written (one per sensor type per sample).
    public var sampleCount: Int
    /// Samples lost, each reported by a gap record.
    public var droppedSamples: Int
    public var gapCount: Int
    public var errorCount: Int?
    public var sha256: String?
    /// The unit of each sensor type in the file.
    public var units: [String: String]
    /// Motion files: how each sensor type's values are to be read, and `axes`.
    public var conventions: [String: String]?
    /// The device's actual sampling rate in Hz.
    public var frequency: Double?
    public var requestedFrequency: Double?
    /// Location recordings: metres walked in all, and in each step (by step path).
    public var totalDistance: Double?
    public var distanceByStep: [String: Double]?
    /// Location recordings: fixes not used for distance (no valid position, or accuracy not
    /// better than the threshold).
    public var unusedFixes: Int?
    /// Audio files: frames in the file, their rate in Hz and channels.
    public var frameCount: Int?
    public var sampleRate: Int?
    public var channels: Int?
    /// Gait files: what the analysis found in each step it covered, in order.
    public var stepSummaries: [GaitStepSummary]?
    /// Heart-rate files: what the recorder measured in each step it covered, in order.
    public var heartRateSummaries: [HeartRateStepSummary]?
    /// Audio files: where lost audio was written as silence (`droppedSamples` frames in all).
    public var gaps: [AudioGap]?

    public init(identifier: String, relativePath: String, contentType: String = "application/x-ndjson", device: String? = nil,
                startDate: Date, startUptime: Double, units: [String: String]) {
        self.identifier = identifier
        self.relativePath = relativePath
        self.contentType = contentType
        self.device = device
        self.startDate = startDate
        self.startUptime = startUptime
        self.sampleCount = 0
        self.droppedSamples = 0
        self.gapCount = 0
        self.units = units
    }
}

/// An async action that failed (no device, unsupported sensor, write error…).
public struct ErrorResult: Sendable, Equatable, Codable {
    public var type: String = "error"
    /// `<identifier>_error`.
    public var identifier: String
    public var errorDescription: String

    public init(identifier: String, errorDescription: String) {
        self.identifier = identifier
        self.errorDescription = errorDescription
    }
}

/// A file or error result.
public enum AsyncResult: Sendable, Equatable, Codable {
    case file(FileResult)
    case error(ErrorResult)

    enum TypeKey: String, CodingKey { case type }

    public init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        switch type {
        case "file": self = .file(try FileResult(from: decoder))
        case "error": self = .error(try ErrorResult(from: decoder))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: [TypeKey.type], debugDescription: "expected file or error"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .file(let f): try f.encode(to: encoder)
        case .error(let e): try e.encode(to: encoder)
        }
    }

    /// The file result, or nil.
    public var file: FileResult? {
        if case .file(let f) = self { return f }
        return nil
    }

    /// The error result, or nil.
    public var error: ErrorResult? {
        if case .error(let e) = self { return e }
        return nil
    }
}

/// `taskResult.json`: the manifest of one task run.
public struct TaskResult: Sendable, Equatable, Codable {
    public var taskIdentifier: String
    public var taskRunUUID: UUID
    public var startDate: Date
    public var endDate: Date?
    public var status: TaskRunStatus
    public var stepHistory: [StepHistoryEntry]
    public var asyncResults: [AsyncResult]
    /// The canonical URL of the FHIR Questionnaire the task was made from (`task.start`).
    public var questionnaire: String?
    /// The wall clock's synchronisation when the run started and when it ended (absent when
    /// recorderd was told not to ask: `clock.source` "none").
    public var clockAtStart: ClockSynchronisation?
    public var clockAtEnd: ClockSynchronisation?

    public init(taskIdentifier: String, taskRunUUID: UUID, startDate: Date, status: TaskRunStatus = .recording) {
        self.taskIdentifier = taskIdentifier
        self.taskRunUUID = taskRunUUID
        self.startDate = startDate
        self.status = status
        self.stepHistory = []
        self.asyncResults = []
    }
}
