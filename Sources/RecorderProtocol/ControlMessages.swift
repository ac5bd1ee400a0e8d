import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// `task.start` parameters.
public struct TaskStartParams: Sendable, Codable, Equatable {
    public var taskIdentifier: String
    public var taskRunUUID: UUID?
    public var asyncActions: [AsyncActionConfiguration]
    /// The canonical URL (`url|version`) of the FHIR Questionnaire the task was made from; kept
    /// in the task result for the FHIR export's QuestionnaireResponse.
    public var questionnaire: String?

    public init(taskIdentifier: String, taskRunUUID: UUID? = nil, asyncActions: [AsyncActionConfiguration], questionnaire: String? = nil) {
        self.taskIdentifier = taskIdentifier
        self.taskRunUUID = taskRunUUID
        self.asyncActions = asyncActions
        self.questionnaire = questionnaire
    }

    enum CodingKeys: String, CodingKey { case taskIdentifier, taskRunUUID, asyncActions, questionnaire }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        taskIdentifier = try c.decode(String.self, forKey: .taskIdentifier)
        taskRunUUID = try c.decodeIfPresent(UUID.self, forKey: .taskRunUUID)
        asyncActions = try c.decode([AsyncActionConfiguration].self, forKey: .asyncActions)
        questionnaire = try c.decodeIfPresent(String.self, forKey: .questionnaire)
        if let questionnaire, let problem = CanonicalURL.problem(questionnaire) {
            throw DecodingError.dataCorruptedError(forKey: .questionnaire, in: c, debugDescription: problem)
        }
    }
}

/// `task.start` result.
public struct TaskStartResult: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID
    public var runDirectory: String
    /// Async actions that could not start (also in the task result as error results).
    public var errors: [ErrorResult]?

    public init(taskRunUUID: UUID, runDirectory: String, errors: [ErrorResult]? = nil) {
        self.taskRunUUID = taskRunUUID
        self.runDirectory = runDirectory
        self.errors = errors
    }
}

/// `step.start` / `step.finish` parameters. The step path must satisfy `StepPath`.
public struct StepParams: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID
    public var stepPath: String
    /// `step.finish`: the answers the step collected (validated as `AnswerResult` decodes; at
    /// most `AnswerResult.maximumCount`, each identifier once). `step.start` refuses them.
    public var results: [AnswerResult]?

    public init(taskRunUUID: UUID, stepPath: String, results: [AnswerResult]? = nil) {
        self.taskRunUUID = taskRunUUID
        self.stepPath = stepPath
        self.results = results
    }

    enum CodingKeys: String, CodingKey { case taskRunUUID, stepPath, results }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        taskRunUUID = try c.decode(UUID.self, forKey: .taskRunUUID)
        stepPath = try c.decode(String.self, forKey: .stepPath)
        if let problem = StepPath.problem(stepPath) {
            throw DecodingError.dataCorruptedError(forKey: .stepPath, in: c, debugDescription: problem)
        }
        results = try c.decodeIfPresent([AnswerResult].self, forKey: .results)
        if let results, let problem = AnswerResult.listProblem(results) {
            throw DecodingError.dataCorruptedError(forKey: .results, in: c, debugDescription: problem)
        }
    }
}

/// `step.start` / `step.finish` result.
public struct StepResult: Sendable, Codable, Equatable {
    public var uptime: Double
    /// Identifiers of the recorders started or stopped by this boundary.
    public var startedRecorders: [String]
    public var stoppedRecorders: [String]
    /// `step.finish`: what the `gait` analyses found in the step, from the samples read when it
    /// finished (the task result's summaries add what was still in flight).
    public var summaries: [GaitStepSummary]?
    /// `step.finish`: what the `heartRate` recorders measured in the step.
    public var heartRate: [HeartRateStepSummary]?

    public init(uptime: Double, startedRecorders: [String], stoppedRecorders: [String], summaries: [GaitStepSummary]? = nil,
                heartRate: [HeartRateStepSummary]? = nil) {
        self.uptime = uptime
        self.startedRecorders = startedRecorders
        self.stoppedRecorders = stoppedRecorders
        self.summaries = summaries
        self.heartRate = heartRate
    }
}

/// `task.finish` parameters.
public struct TaskRunParams: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID

    public init(taskRunUUID: UUID) { self.taskRunUUID = taskRunUUID }
}

/// `task.cancel` parameters.
public struct TaskCancelParams: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID
    public var keepFiles: Bool?

    public init(taskRunUUID: UUID, keepFiles: Bool? = nil) {
        self.taskRunUUID = taskRunUUID
        self.keepFiles = keepFiles
    }
}

/// `stream.subscribe` parameters.
public struct SubscribeParams: Sendable, Codable, Equatable {
    public var device: String
    public var sensorTypes: [SensorType]?
    /// Records per second per sensor type (`rateRange`); absent: every sample.
    public var rate: Double?
    /// The participant's heights (m), for the `step` stream's stride lengths (as the gait
    /// action's: `GaitOptions`).
    public var bodyHeight: Double?
    public var sensorHeight: Double?

    /// Live rates a subscriber may ask for.
    public static let rateRange = NumberRange(atLeast: 0.001, atMost: 100_000, "a rate in Hz")

    public init(device: String, sensorTypes: [SensorType]? = nil, rate: Double? = nil, bodyHeight: Double? = nil, sensorHeight: Double? = nil) {
        self.device = device
        self.sensorTypes = sensorTypes
        self.rate = rate
        self.bodyHeight = bodyHeight
        self.sensorHeight = sensorHeight
    }

    enum CodingKeys: String, CodingKey { case device, sensorTypes, rate, bodyHeight, sensorHeight }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(String.self, forKey: .device)
        sensorTypes = try c.decodeIfPresent([SensorType].self, forKey: .sensorTypes)
        rate = try c.decodeIfPresent(Double.self, forKey: .rate, in: Self.rateRange)
        bodyHeight = try c.decodeIfPresent(Double.self, forKey: .bodyHeight, in: GaitOptions.bodyHeightRange)
        sensorHeight = try c.decodeIfPresent(Double.self, forKey: .sensorHeight, in: GaitOptions.sensorHeightRange)
    }

    /// The configuration a streamed analysis is made with: the gait options of the heights given.
    public var analysisConfiguration: AsyncActionConfiguration? {
        guard bodyHeight != nil || sensorHeight != nil else { return nil }
        return AsyncActionConfiguration(identifier: "", options: .gait(GaitOptions(bodyHeight: bodyHeight, sensorHeight: sensorHeight)))
    }
}

/// `stream.subscribe` result.
public struct SubscribeResult: Sendable, Codable, Equatable {
    public var subscription: Int
    public var device: String
    /// The device's rate in Hz, and the rate actually delivered.
    public var deviceRate: Double
    public var rate: Double

    public init(subscription: Int, device: String, deviceRate: Double, rate: Double) {
        self.subscription = subscription
        self.device = device
        self.deviceRate = deviceRate
        self.rate = rate
    }
}

/// `stream.unsubscribe` parameters.
public struct UnsubscribeParams: Sendable, Codable, Equatable {
    public var subscription: Int

    public init(subscription: Int) { self.subscription = subscription }
}

/// `devices.list` result: the configured devices, and the hardware the backends found.
public struct DevicesListResult: Sendable, Codable, Equatable {
    public var devices: [DeviceInfo]
    public var hardware: [HardwareDevice]?

    public init(devices: [DeviceInfo], hardware: [HardwareDevice]? = nil) {
        self.devices = devices
        self.hardware = hardware
    }
}

/// `devices.scan` parameters: look for devices of `kind` nearby for `seconds` (default 10, at
/// most 60) through `adapter` (the backend's default when absent).
public struct DeviceScanParams: Sendable, Codable, Equatable {
    public var kind: String
    public var seconds: Double?
    public var adapter: String?

    /// The seconds a scan may take.
    public static let secondsRange = NumberRange(atLeast: 1, atMost: 60, "seconds")

    public init(kind: String, seconds: Double? = nil, adapter: String? = nil) {
        self.kind = kind
        self.seconds = seconds
        self.adapter = adapter
    }

    enum CodingKeys: String, CodingKey { case kind, seconds, adapter }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let kind = try c.decodeIfPresent(String.self, forKey: .kind, bytes: 1...64, expected: "expected a device kind") else {
            throw DecodingError.keyNotFound(CodingKeys.kind, .init(codingPath: c.codingPath, debugDescription: "expected a device kind"))
        }
        self.kind = kind
        seconds = try c.decodeIfPresent(Double.self, forKey: .seconds, in: Self.secondsRange)
        adapter = try c.decodeIfPresent(String.self, forKey: .adapter, bytes: 1...16, expected: "expected an adapter name such as hci0")
    }
}

/// `devices.scan` result: what was found, strongest signal first (`details.rssi`).
public struct DeviceScanResult: Sendable, Codable, Equatable {
    public var devices: [HardwareDevice]

    public init(devices: [HardwareDevice]) {
        self.devices = devices
    }
}

/// `daemon.status` result.
public struct DaemonStatus: Sendable, Codable, Equatable {
    public var version: String
    public var uptimeSeconds: Double
    public var pid: Int32
    public var dataDirectory: String
    public var devices: [DeviceInfo]
    public var taskRuns: [ActiveTaskRun]
    /// The data directory's disk use and free space (nil when it cannot be measured).
    public var disk: DiskUsage?
    /// The last `EndedTaskRun.kept` runs that ended since recorderd started, oldest first.
    public var recentlyEnded: [EndedTaskRun]?
    /// The web page and the fleet link's process, when the configuration has `http` or `mqtt`.
    public var services: ServicesProcessInfo?
    /// The wall clock's synchronisation, as last asked (nil before the first answer, or with
    /// `clock.source` "none").
    public var clock: ClockSynchronisation?

    public init(version: String, uptimeSeconds: Double, pid: Int32, dataDirectory: String, devices: [DeviceInfo], taskRuns: [ActiveTaskRun],
                disk: DiskUsage? = nil, recentlyEnded: [EndedTaskRun]? = nil, services: ServicesProcessInfo? = nil, clock: ClockSynchronisation? = nil) {
        self.clock = clock
        self.disk = disk
        self.recentlyEnded = recentlyEnded
        self.services = services
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.pid = pid
        self.dataDirectory = dataDirectory
        self.devices = devices
        self.taskRuns = taskRuns
    }
}

/// `runs.list` parameters: filters (all optional) and paging. Runs come newest first.
public struct RunsListParams: Sendable, Codable, Equatable {
    /// Only runs of this task.
    public var taskIdentifier: String?
    /// Only runs in this status.
    public var status: TaskRunStatus?
    /// Only runs that started at or after / before this ISO-8601 date.
    public var since: String?
    public var until: String?
    /// At most this many runs (1…1000; default 100), after skipping `offset` (default 0).
    public var limit: Int?
    public var offset: Int?

    /// The largest page.
    public static let largestLimit = RunSummary.largestPage

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

/// `runs.list` result: one page of the runs that pass the filters, and how many pass in all.
public struct RunsListResult: Sendable, Codable, Equatable {
    public var runs: [RunSummary]
    public var total: Int
    public var offset: Int

    public init(runs: [RunSummary], total: Int, offset: Int) {
        self.runs = runs
        self.total = total
        self.offset = offset
    }
}

/// `daemon.status` parameters: `disk: false` leaves out the disk use (no walk over the runs' files).
public struct DaemonStatusParams: Sendable, Codable, Equatable {
    public var disk: Bool?

    public init(disk: Bool? = nil) {
        self.disk = disk
    }
}

/// `runs.get` and `runs.delete` parameters: `run` is a task-run UUID or a unique prefix of one.
public struct RunParams: Sendable, Codable, Equatable {
    public var run: String

    public init(run: String) {
        self.run = run
    }
}

/// `runs.get` result: the run's summary and its manifest (`taskResult.json`).
public struct RunDetails: Sendable, Codable, Equatable {
    public var summary: RunSummary
    public var taskResult: TaskResult

    public init(summary: RunSummary, taskResult: TaskResult) {
        self.summary = summary
        self.taskResult = taskResult
    }
}

/// `runs.delete` result: the run removed and the bytes its files took.
public struct RunDeleted: Sendable, Codable, Equatable {
    public var taskRunUUID: UUID
    public var runDirectory: String
    public var freedBytes: Int64

    public init(taskRunUUID: UUID, runDirectory: String, freedBytes: Int64) {
        self.taskRunUUID = taskRunUUID
        self.runDirectory = runDirectory
        self.freedBytes = freedBytes
    }
}
