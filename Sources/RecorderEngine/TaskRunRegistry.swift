import Foundation
import Logging
import RecorderModel
import Synchronization

/// The task runs that are recording, by UUID; starts, routes and ends them.
public final class TaskRunRegistry: Sendable {
    public let dataDirectory: String
    let devices: DeviceRegistry
    let ringSeconds: Double
    let clock: any RecorderClock
    let logger: Logger
    private let runs = LockedValue<[UUID: TaskRun]>([:])
    private let closing = Atomic<Bool>(false)

    public init(dataDirectory: String, devices: DeviceRegistry, ringSeconds: Double, clock: any RecorderClock = SystemClock(), logger: Logger) {
        self.dataDirectory = dataDirectory
        self.devices = devices
        self.ringSeconds = ringSeconds
        self.clock = clock
        self.logger = logger
    }

    /// The directory of all runs of all tasks.
    public var runsDirectory: String { dataDirectory + "/runs" }

    func run(_ uuid: UUID) throws(TaskRunError) -> TaskRun {
        guard let run = runs.withLock({ $0[uuid] }) else { throw .unknownTaskRun(uuid.uuidString) }
        return run
    }

    /// `task.start`.
    public func start(_ params: TaskStartParams) async throws(TaskRunError) -> TaskStartResult {
        guard !closing.load(ordering: .acquiring) else { throw .shuttingDown }
        guard RecorderIdentifier.isValid(params.taskIdentifier) else {
            throw .invalidConfiguration("taskIdentifier: invalid identifier \(params.taskIdentifier.debugDescription): expected \(RecorderIdentifier.expectation)")
        }
        var seen = Set<String>()
        for (i, action) in params.asyncActions.enumerated() {
            guard seen.insert(action.identifier).inserted else {
                throw .invalidConfiguration("asyncActions[\(i)].identifier: \(action.identifier.debugDescription) is used twice in this task run")
            }
            if case .motion(let o) = action.options, o.preRollSeconds > ringSeconds {
                throw .invalidConfiguration("asyncActions[\(i)].preRollSeconds: expected at most ringSeconds (\(ringSeconds))")
            }
        }
        let uuid = params.taskRunUUID ?? UUID()
        let startDate = clock.now()
        let directory = "\(runsDirectory)/\(params.taskIdentifier)/\(ISO8601Timestamp.compactString(from: startDate))-\(uuid.uuidString)"
        let run = TaskRun(uuid: uuid, taskIdentifier: params.taskIdentifier, directory: directory,
                          actions: params.asyncActions, clock: clock, logger: logger)
        let inserted = runs.withLock { r -> Bool in
            guard r[uuid] == nil else { return false }
            r[uuid] = run
            return true
        }
        guard inserted else { throw .duplicateTaskRun(uuid.uuidString) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o750])
        } catch {
            runs.withLock { $0[uuid] = nil }
            throw .storage("cannot create \(directory): \((error as NSError).localizedDescription)")
        }
        let devices = self.devices
        let actions = params.asyncActions
        let errors = try await run.perform { run.begin(devices: devices, actions: actions) }
        logger.info("task run started", metadata: ["taskRun": "\(uuid)", "task": "\(params.taskIdentifier)", "directory": "\(directory)"])
        return TaskStartResult(taskRunUUID: uuid, runDirectory: directory, errors: errors.isEmpty ? nil : errors)
    }

    /// `step.start`. `respond`, when given, gets the outcome on the run's queue first (the
    /// daemon answers from there); it is not called when the run is unknown (that throws).
    public func startStep(_ params: StepParams, respond: (@Sendable (Result<StepResult, TaskRunError>) -> Void)? = nil) async throws(TaskRunError) -> StepResult {
        let run = try run(params.taskRunUUID)
        let path = params.stepPath
        return try await run.perform(respond: respond) { () throws(TaskRunError) -> StepResult in try run.startStep(path) }
    }

    /// `step.finish`; `respond` as for `startStep`.
    public func finishStep(_ params: StepParams, respond: (@Sendable (Result<StepResult, TaskRunError>) -> Void)? = nil) async throws(TaskRunError) -> StepResult {
        let run = try run(params.taskRunUUID)
        let path = params.stepPath
        return try await run.perform(respond: respond) { () throws(TaskRunError) -> StepResult in try run.finishStep(path) }
    }

    /// Ends a run with `status` and removes it; returns its final result.
    func end(_ run: TaskRun, status: TaskRunStatus) async -> TaskResult {
        run.lastActivity.withLock { $0 = clock.uptime() }
        let result: TaskResult = await withCheckedContinuation { continuation in
            run.queue.async {
                run.end(status: status) { continuation.resume(returning: $0) }
            }
        }
        runs.withLock { $0[run.uuid] = nil }
        logger.info("task run ended", metadata: ["taskRun": "\(run.uuid)", "status": "\(status.rawValue)"])
        return result
    }

    /// `task.finish`.
    public func finish(_ uuid: UUID) async throws(TaskRunError) -> TaskResult {
        await end(try run(uuid), status: .finished)
    }

    /// `task.cancel`: closes the recorders and deletes the run's files unless `keepFiles`.
    public func cancel(_ uuid: UUID, keepFiles: Bool) async throws(TaskRunError) -> TaskResult {
        let run = try run(uuid)
        let result = await end(run, status: .cancelled)
        if !keepFiles {
            try? FileManager.default.removeItem(atPath: run.directory)
        }
        return result
    }

    /// Finishes, as `abandoned`, the runs without a request for `timeout` seconds.
    @discardableResult
    public func sweepOrphans(timeout: Double) async -> [UUID] {
        let now = clock.uptime()
        let idle = runs.withLock { r in r.values.filter { now - $0.lastActivity.withLock { $0 } >= timeout } }
        for run in idle {
            logger.warning("task run abandoned", metadata: ["taskRun": "\(run.uuid)", "idleSeconds": "\(now - run.lastActivity.withLock { $0 })"])
            _ = await end(run, status: .abandoned)
        }
        return idle.map(\.uuid)
    }

    /// Ends every run as `interrupted` (shutdown) and refuses new ones.
    public func interruptAll() async {
        closing.store(true, ordering: .releasing)
        let all = runs.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for run in all { group.addTask { _ = await self.end(run, status: .interrupted) } }
        }
    }


    /// The runs recording now.
    public func active() async -> [ActiveTaskRun] {
        let all = runs.withLock { Array($0.values) }
        var infos: [ActiveTaskRun] = []
        for run in all {
            if let info = try? await run.perform(touching: false, { run.activeInfo() }) { infos.append(info) }
        }
        return infos.sorted { $0.taskRunUUID.uuidString < $1.taskRunUUID.uuidString }
    }
}
