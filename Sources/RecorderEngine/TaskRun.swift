import Dispatch
import FoundationEssentials
import Glibc
import Logging
import RecorderModel
import RecorderRuntime

/// One task run: its rules, its recorders and its manifest.
///
/// `@unchecked Sendable`: mutable state is used only by whoever runs the run's work on `queue` (a
/// serial `RunQueue`, so the file I/O never runs on the cooperative pool; every method that
/// touches it asserts so with `RunQueue.precondition`); the async methods hop onto it. What other threads may read — the
/// last activity and the published status — sits behind locks.
public final class TaskRun: @unchecked Sendable {
    public let uuid: UUID
    public let taskIdentifier: String
    /// The run directory.
    public let directory: String
    /// Async actions configured (each may become a recorder).
    let actionCount: Int
    let queue: RunQueue
    let persistQueue: DispatchQueue
    private let pendingPersist = LockedValue<TaskResult?>(nil)
    let clock: any RecorderClock
    let logger: Logger
    var rules: TaskRunRules
    var result: TaskResult
    /// Recorders in configuration order (those whose device exists).
    var recordings: [Recording] = []
    /// Seconds of CLOCK_MONOTONIC of the last request about this run.
    let lastActivity: LockedValue<Double>
    /// What `daemon.status` shows, republished on the queue after every change (so that status
    /// never waits for a busy run).
    let published: LockedValue<ActiveTaskRun>

    init(uuid: UUID, taskIdentifier: String, directory: String, actions: [AsyncActionConfiguration],
         questionnaire: String? = nil, clock: any RecorderClock, logger: Logger) {
        self.uuid = uuid
        self.taskIdentifier = taskIdentifier
        self.directory = directory
        actionCount = actions.count
        self.clock = clock
        self.logger = logger
        queue = RunQueue(label: "recorderd.run.\(uuid.uuidString)")
        persistQueue = DispatchQueue(label: "recorderd.run.persist.\(uuid.uuidString)")
        rules = TaskRunRules(taskIdentifier: taskIdentifier, actions: actions)
        result = TaskResult(taskIdentifier: taskIdentifier, taskRunUUID: uuid, startDate: clock.now())
        result.questionnaire = questionnaire
        lastActivity = LockedValue(clock.uptime())
        published = LockedValue(ActiveTaskRun(taskIdentifier: taskIdentifier, taskRunUUID: uuid, runDirectory: directory,
                                              currentStepPath: nil, recording: []))
    }

    /// Asserts that the caller runs on the run's queue.
    @inline(__always)
    func onQueue() {
        queue.precondition()
    }

    /// Runs `body` on the run's queue and returns its outcome.
    func perform<T: Sendable>(touching: Bool = true, _ body: @escaping @Sendable () throws(TaskRunError) -> T) async throws(TaskRunError) -> T {
        let outcome: Result<T, TaskRunError> = await QueueHandOff.callback { deliver in
            submit(touching: touching, respond: deliver, body)
        }
        return try outcome.get()
    }

    /// Runs `body` on the run's queue and calls `respond` there with its outcome; returns at once.
    /// The daemon answers step boundaries this way, from the queue, with no task awaiting them.
    func submit<T: Sendable>(touching: Bool = true, respond: @escaping @Sendable (Result<T, TaskRunError>) -> Void,
                             _ body: @escaping @Sendable () throws(TaskRunError) -> T) {
        if touching { lastActivity.withLock { $0 = clock.uptime() } }
        queue.async {
            let outcome: Result<T, TaskRunError>
            do throws(TaskRunError) {
                outcome = .success(try body())
            } catch {
                outcome = .failure(error)
            }
            respond(outcome)
        }
    }

    // MARK: On the queue

    /// Sets up the recorders (on the queue). Returns error results of actions that cannot record.
    /// Throws, before any recorder starts, when the manifest cannot be made durable (disk full,
    /// no descriptor left): a run that could not say what it recorded is not started.
    func begin(devices: DeviceRegistry, actions: [AsyncActionConfiguration]) throws(TaskRunError) -> [ErrorResult] {
        onQueue()
        do {
            try allocateReserve()
            try TaskResultStore.write(result, directory: directory)
        } catch {
            throw .storage("cannot start the task run: \(error)")
        }
        var errors: [ErrorResult] = []
        for action in actions {
            do throws(DeviceError) {
                let device = try devices.device(for: action)
                var wanted: [SensorType]
                var analysis: (any AnalysisProvider)?
                switch action.options {
                case .motion(let o): wanted = o.recorderTypes
                case .distance: wanted = [.location]
                case .microphone: wanted = [.soundLevel]
                case .heartRate: wanted = [.heartRate]
                case .gait:
                    guard let provider = devices.analysis(for: action.type) else {
                        throw DeviceError.analysisRefused(device.name, action.type, reason: "this recorderd has no such analysis")
                    }
                    analysis = provider
                    wanted = Array(action.type.deviceSensorTypes)
                }
                // An unavailable device is tried again when the recorder starts (it may be back by
                // then); one that is open is checked for the sensors now (an analysis's: those it reads).
                var types = wanted
                if device.probe(), let caps = device.capabilities {
                    if let analysis {
                        do throws(AnalysisRefusal) {
                            wanted = try analysis.inputTypes(capabilities: caps)
                        } catch {
                            throw DeviceError.analysisRefused(device.name, action.type, reason: error.description)
                        }
                    }
                    types = wanted.filter(caps.sensorTypes.contains)
                    for missing in wanted where !caps.sensorTypes.contains(missing) {
                        errors.append(ErrorResult(identifier: action.identifier + "_error",
                                                  errorDescription: DeviceError.unsupportedSensor(device.name, missing).description))
                    }
                    if types.isEmpty { continue }
                }
                let recording = Recording(configuration: action, device: device, types: types, analysis: analysis, directory: directory,
                                          stepPath: rules.currentStepPath, queue: queue, clock: clock)
                recording.onFailure = { [unowned self] in
                    logger.error("recorder stopped", metadata: ["taskRun": "\(uuid)", "recorder": "\(recording.identifier)",
                                                                "error": "\(recording.failure ?? "")"])
                    persist()
                }
                if recording.preRollSeconds > 0 {
                    do throws(DeviceError) {
                        try recording.arm()
                    } catch {
                        logger.warning("pre-roll not armed", metadata: ["taskRun": "\(uuid)", "recorder": "\(action.identifier)", "error": "\(error)"])
                    }
                }
                recordings.append(recording)
            } catch {
                errors.append(ErrorResult(identifier: action.identifier + "_error", errorDescription: error.description))
            }
        }
        result.asyncResults = errors.map { .error($0) }
        let actionsToRun = rules.startTask()
        _ = apply(actionsToRun, uptime: clock.uptime(), date: clock.now())
        persist()
        return result.asyncResults.compactMap(\.error)
    }

    func recording(_ identifier: String) -> Recording? {
        recordings.first { $0.identifier == identifier }
    }

    /// Undoes `begin` after a failed start: recorders leave their devices, the reserve goes.
    func abandonStart() {
        onQueue()
        for r in recordings { r.detach() }
        recordings = []
        releaseReserve()
    }

    /// Carries out the rules' actions; returns the recorders started and stopped.
    func apply(_ actions: [TaskRunRules.Action], uptime: Double, date: Date) -> (started: [String], stopped: [String]) {
        onQueue()
        var started: [String] = []
        var stopped: [String] = []
        for action in actions {
            switch action {
            case .changeStep(let path):
                for r in recordings { r.changeStep(path, uptime: uptime) }
            case .startRecorder(let id):
                guard let r = recording(id) else { continue }
                do {
                    let missing = try r.start(uptime: uptime, date: date)
                    for type in missing { addError(identifier: id, description: DeviceError.unsupportedSensor(r.device.name, type).description) }
                    started.append(id)
                } catch {
                    logger.warning("recorder did not start", metadata: ["taskRun": "\(uuid)", "recorder": "\(id)", "error": "\(error)"])
                    addError(identifier: id, description: error.description)
                    r.detach()
                }
            case .stopRecorder(let id):
                guard let r = recording(id) else { continue }
                r.stop(uptime: uptime)
                stopped.append(id)
                queue.async(after: Recording.stopGrace) { [self] in
                    r.finalize(date: clock.now())
                    persist()
                }
            }
        }
        return (started, stopped)
    }

    func addError(identifier: String, description: String) {
        let id = identifier + "_error"
        if !result.asyncResults.contains(where: { $0.error?.identifier == id }) {
            result.asyncResults.append(.error(ErrorResult(identifier: id, errorDescription: description)))
        }
    }

    /// A step boundary's moment and what the rules make of it; a boundary out of order is a
    /// `stepOrder` error.
    private func stepBoundary(_ path: String, finishing: Bool) throws(TaskRunError) -> (uptime: Double, date: Date, actions: [TaskRunRules.Action]) {
        onQueue()
        let uptime = clock.uptime()
        let date = clock.now()
        do {
            return (uptime, date, try finishing ? rules.finishStep(path) : rules.startStep(path))
        } catch {
            throw .stepOrder(error.description)
        }
    }

    func startStep(_ path: String) throws(TaskRunError) -> StepBoundaryOutcome {
        let (uptime, date, actions) = try stepBoundary(path, finishing: false)
        result.stepHistory.append(StepHistoryEntry(stepPath: path, startDate: date, startUptime: uptime))
        let (started, stopped) = apply(actions, uptime: uptime, date: date)
        persist()
        return StepBoundaryOutcome(uptime: uptime, startedRecorders: started, stoppedRecorders: stopped)
    }

    /// `results`: the answers the step collected, kept in its history entry.
    func finishStep(_ path: String, results: [AnswerResult]? = nil) throws(TaskRunError) -> StepBoundaryOutcome {
        let (uptime, date, actions) = try stepBoundary(path, finishing: true)
        if let i = result.stepHistory.lastIndex(where: { $0.stepPath == path && $0.endUptime == nil }) {
            result.stepHistory[i].endDate = date
            result.stepHistory[i].endUptime = uptime
            if let results, !results.isEmpty { result.stepHistory[i].results = results }
        }
        let (started, stopped) = apply(actions, uptime: uptime, date: date)
        let summaries = recordings.compactMap { $0.summary(ofStep: path) }
        persist()
        return StepBoundaryOutcome(uptime: uptime, startedRecorders: started, stoppedRecorders: stopped,
                                   gait: summaries.compactMap(\.gait), heartRate: summaries.compactMap(\.heartRate))
    }

    /// Calls `deliver` with each final summary of the step at `path` by the analyses
    /// `identifiers` (see `Recording.whenFinal`).
    func whenSummariesFinal(ofStep path: String, identifiers: [String], deliver: @escaping @Sendable (GaitStepSummary) -> Void) {
        queue.precondition()
        for identifier in identifiers { recording(identifier)?.whenFinal(ofStep: path, deliver: deliver) }
    }

    /// Stops every recorder and closes the run with `status`; calls `completion` on the queue with
    /// the final result once the files are closed and the manifest is durable — or with why the
    /// manifest could not be written.
    func end(status: TaskRunStatus, completion: @escaping @Sendable (TaskResult, StorageError?) -> Void) {
        onQueue()
        guard !rules.isFinished else {
            completion(result, nil)
            return
        }
        let uptime = clock.uptime()
        let date = clock.now()
        for i in result.stepHistory.indices where result.stepHistory[i].endUptime == nil {
            result.stepHistory[i].endDate = date
            result.stepHistory[i].endUptime = uptime
        }
        for r in recordings { r.stop(uptime: uptime) }
        _ = rules.finishTask()
        result.status = status
        result.endDate = date
        queue.async(after: Recording.stopGrace) { [self] in
            for r in recordings { r.finalize(date: clock.now()) }
            let final = snapshot()
            let failure = persistQueue.sync { () -> StorageError? in
                pendingPersist.withLock { $0 = nil }
                releaseReserve()
                return writeManifest(final)
            }
            completion(final, failure)
        }
    }

    /// The manifest with the recorders' current file results.
    func snapshot() -> TaskResult {
        onQueue()
        var snapshot = result
        var results: [AsyncResult] = []
        for r in recordings {
            results.append(contentsOf: r.currentFileResults.map { .file($0) })
            if let failure = r.failure { addError(identifier: r.identifier, description: failure) }
        }
        snapshot.asyncResults = results + result.asyncResults.filter { $0.error != nil }
        return snapshot
    }

    /// Writes the manifest soon (coalesced) on the persistence queue, and republishes the status.
    func persist() {
        let snap = snapshot()
        publish()
        let first = pendingPersist.withLock { p -> Bool in
            defer { p = snap }
            return p == nil
        }
        guard first else { return }
        persistQueue.async { [self] in
            guard let latest = pendingPersist.withLock({ p -> TaskResult? in defer { p = nil }; return p }) else { return }
            writeManifest(latest)
        }
    }


    // MARK: Space reserve

    /// Bytes kept allocated in the run directory so that the manifest can still be written when
    /// the disk fills up.
    static let reserveSize = 256 * 1024
    var reservePath: String { directory + "/.space-reserve" }

    /// Allocates the reserve; throws when the disk (or the descriptor table) cannot hold it.
    func allocateReserve() throws(StorageError) {
        let fd = open(reservePath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError("create", path: reservePath, errno: errno) }
        defer { close(fd) }
        let rc = posix_fallocate(fd, 0, off_t(Self.reserveSize))
        // posix_fallocate returns the error; EOPNOTSUPP/EINVAL: the file system cannot reserve
        // (no space is promised then, but nothing is wrong either).
        if rc == ENOSPC || rc == EDQUOT {
            unlink(reservePath)
            throw StorageError("reserve space in", path: reservePath, errno: rc)
        }
    }

    /// Frees the reserve (when the disk is full, or at the end of the run).
    func releaseReserve() {
        unlink(reservePath)
    }

    /// Writes the manifest; on a full disk frees the reserve and tries once more. Returns why it
    /// could not be written (logged), or nil.
    @discardableResult
    func writeManifest(_ snapshot: TaskResult) -> StorageError? {
        do {
            try TaskResultStore.write(snapshot, directory: directory)
            return nil
        } catch {
            var failure = error
            if error.errno == ENOSPC || error.errno == EDQUOT {
                releaseReserve()
                do {
                    try TaskResultStore.write(snapshot, directory: directory)
                    return nil
                } catch {
                    failure = error
                }
            }
            logger.error("task result not written", metadata: ["taskRun": "\(uuid)", "error": "\(failure)"])
            return failure
        }
    }

    /// Publishes what `daemon.status` shows (on the queue): recorders that stopped on a failure
    /// are listed as `failed`, not as recording.
    func publish() {
        onQueue()
        let failed = recordings.filter { $0.failure != nil }.map(\.identifier)
        let info = ActiveTaskRun(taskIdentifier: taskIdentifier, taskRunUUID: uuid, runDirectory: directory,
                                 currentStepPath: rules.activeSteps.last,
                                 recording: rules.recordingIdentifiers.filter { !failed.contains($0) },
                                 failed: failed.isEmpty ? nil : failed)
        published.withLock { $0 = info }
    }
}
