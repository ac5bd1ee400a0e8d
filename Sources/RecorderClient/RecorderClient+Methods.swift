import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderProtocol

extension RecorderClient {
    /// `daemon.status`; `disk: false` leaves out the disk use (no walk over the runs' files).
    public func status(disk: Bool = true) async throws(RecorderClientError) -> DaemonStatus {
        try await call(.daemonStatus, disk ? JSONValue.object([:]) : JSONValue.object(["disk": .bool(false)]))
    }

    /// `devices.list`.
    public func devices() async throws(RecorderClientError) -> [DeviceInfo] {
        try await devicesList().devices
    }

    /// `devices.list` in full: the configured devices and the hardware the backends found.
    public func devicesList() async throws(RecorderClientError) -> DevicesListResult {
        try await call(.devicesList, JSONValue.object([:]))
    }

    /// `devices.scan`: devices of `kind` nearby (a Bluetooth LE scan of `seconds`).
    public func scan(kind: String, seconds: Double? = nil, adapter: String? = nil) async throws(RecorderClientError) -> DeviceScanResult {
        try await call(.devicesScan, DeviceScanParams(kind: kind, seconds: seconds, adapter: adapter))
    }

    /// `runs.list`: the data directory's runs passing `params`' filters, newest first, one page.
    public func runs(_ params: RunsListParams = RunsListParams()) async throws(RecorderClientError) -> RunsListResult {
        try await call(.runsList, params)
    }

    /// `runs.get`: a run's summary and manifest; `run` is its UUID or a unique prefix of it.
    public func run(_ run: String) async throws(RecorderClientError) -> RunDetails {
        try await call(.runsGet, RunParams(run: run))
    }

    /// `runs.delete`: removes a run that is not recording, with its files.
    public func deleteRun(_ run: String) async throws(RecorderClientError) -> RunDeleted {
        try await call(.runsDelete, RunParams(run: run))
    }

    /// `task.start`: starts a task run with these async actions; `questionnaire` names the FHIR
    /// Questionnaire (canonical URL) the task was made from.
    public func startTask(identifier: String, taskRunUUID: UUID? = nil, asyncActions: [AsyncActionConfiguration],
                          questionnaire: String? = nil) async throws(RecorderClientError) -> TaskRunHandle {
        let params = TaskStartParams(taskIdentifier: identifier, taskRunUUID: taskRunUUID, asyncActions: asyncActions, questionnaire: questionnaire)
        let result: TaskStartResult = try await call(.taskStart, params)
        return TaskRunHandle(client: self, start: result)
    }

    /// `stream.subscribe`: live records of `device` until the stream is cancelled or the
    /// connection closes. Each element is one notification's records. `gait`: the participant's
    /// heights for the `step` stream's stride lengths.
    public func subscribe(device: String, sensorTypes: [SensorType]? = nil, rate: Double? = nil,
                          gait: GaitOptions? = nil) async throws(RecorderClientError) -> AsyncThrowingStream<[Record], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [Record].self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(4096))
        let params = SubscribeParams(device: device, sensorTypes: sensorTypes, rate: rate, bodyHeight: gait?.bodyHeight, sensorHeight: gait?.sensorHeight)
        try await subscribe(params, to: LiveSink(continuation) { $0.records })
        return stream
    }

    /// `stream.subscribe`, each notification as a `LiveBatch`: its records and each record's
    /// JSON text as the daemon wrote it (to pass on without writing it again).
    public func subscribeBatches(device: String, sensorTypes: [SensorType]? = nil, rate: Double? = nil) async throws(RecorderClientError) -> AsyncThrowingStream<LiveBatch, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: LiveBatch.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(4096))
        try await subscribe(SubscribeParams(device: device, sensorTypes: sensorTypes, rate: rate), to: LiveSink(continuation) { $0 })
        return stream
    }

    private func subscribe(_ params: SubscribeParams, to sink: LiveSink) async throws(RecorderClientError) {
        let result: SubscribeResult = try await call(.streamSubscribe, params) { [weak self] message in
            // On the reader thread, before any notification of this subscription is read.
            if let id = message.result?["subscription"]?.numberValue { self?.register(subscription: Int(saturating: id), sink: sink) }
        }
        sink.onTermination { [weak self] in
            guard let self else { return }
            self.unregister(subscription: result.subscription)
            Task { _ = try? await self.call(.streamUnsubscribe, UnsubscribeParams(subscription: result.subscription), as: JSONValue.self) }
        }
    }
}

/// A handle of a task run the daemon records, started through a `RecorderClient`: its UUID and
/// directory, and its calls (step boundaries, finish, cancel).
public struct TaskRunHandle: Sendable {
    public let client: RecorderClient
    public let taskRunUUID: UUID
    public let runDirectory: String
    /// Async actions that could not start.
    public let errors: [ErrorResult]

    init(client: RecorderClient, start: TaskStartResult) {
        self.client = client
        taskRunUUID = start.taskRunUUID
        runDirectory = start.runDirectory
        errors = start.errors ?? []
    }

    /// `step.start`.
    @discardableResult
    public func startStep(_ stepPath: String) async throws(RecorderClientError) -> StepResult {
        try await client.call(.stepStart, StepParams(taskRunUUID: taskRunUUID, stepPath: stepPath))
    }

    /// `step.finish`, with the answers the step collected (none: `results` is left out).
    @discardableResult
    public func finishStep(_ stepPath: String, results: [AnswerResult] = []) async throws(RecorderClientError) -> StepResult {
        try await client.call(.stepFinish, StepParams(taskRunUUID: taskRunUUID, stepPath: stepPath, results: results.isEmpty ? nil : results))
    }

    /// `task.finish`: stops every recorder; returns the task result.
    public func finish() async throws(RecorderClientError) -> TaskResult {
        try await client.call(.taskFinish, TaskRunParams(taskRunUUID: taskRunUUID))
    }

    /// `task.cancel`: stops every recorder; deletes the files unless `keepFiles`.
    @discardableResult
    public func cancel(keepFiles: Bool = false) async throws(RecorderClientError) -> TaskResult {
        try await client.call(.taskCancel, TaskCancelParams(taskRunUUID: taskRunUUID, keepFiles: keepFiles))
    }
}
