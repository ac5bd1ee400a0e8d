import FoundationEssentials
import Glibc
import Logging
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderRuntime
import Synchronization

/// The task runs that are recording, by UUID; starts, routes and ends them.
public final class TaskRunRegistry: Sendable {
    public let dataDirectory: String
    let devices: DeviceRegistry
    let ringSeconds: Double
    let limits: DaemonLimits
    /// The descriptors a run and its recorders take while they record (shared with connections).
    public let descriptors: DescriptorBudget
    let clock: any RecorderClock
    /// Asked for the clock's synchronisation at each run's start and end (nil: not recorded).
    let clockSynchronisation: (any ClockSynchronisationSource)?
    let logger: Logger
    private let runs = LockedValue<[UUID: TaskRun]>([:])
    /// The newest runs that ended, oldest first (`daemon.status`'s `recentlyEnded`).
    private let ended = LockedValue<[EndedTaskRun]>([])
    private let closing = Atomic<Bool>(false)
    /// Every run UUID in the data directory: none may be used again.
    let index: RunIndex

    public init(dataDirectory: String, devices: DeviceRegistry, ringSeconds: Double, limits: DaemonLimits = DaemonLimits(),
                descriptors: DescriptorBudget = DescriptorBudget(), clock: any RecorderClock = SystemClock(),
                clockSynchronisation: (any ClockSynchronisationSource)? = nil, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.devices = devices
        self.ringSeconds = ringSeconds
        self.limits = limits
        self.descriptors = descriptors
        self.clock = clock
        self.clockSynchronisation = clockSynchronisation
        self.logger = logger
        index = RunIndex(runsDirectory: dataDirectory + "/runs")
    }

    /// The directory of all runs of all tasks.
    public var runsDirectory: String { dataDirectory + "/runs" }

    func run(_ uuid: UUID) throws(TaskRunError) -> TaskRun {
        guard let run = runs.withLock({ $0[uuid] }) else { throw .unknownTaskRun(uuid.uuidString) }
        return run
    }

    /// `task.start`: a run of `taskIdentifier` with `asyncActions` (and the UUID the caller chose,
    /// if any; `questionnaire`: the FHIR Questionnaire the task was made from, kept in its result).
    public func start(taskIdentifier: String, taskRunUUID: UUID? = nil, asyncActions: [AsyncActionConfiguration],
                      questionnaire: String? = nil) async throws(TaskRunError) -> StartedTaskRun {
        guard !closing.load(ordering: .acquiring) else { throw .shuttingDown }
        guard RecorderIdentifier.isValid(taskIdentifier) else {
            throw .invalidConfiguration("taskIdentifier: invalid identifier \(taskIdentifier.debugDescription): expected \(RecorderIdentifier.expectation)")
        }
        guard asyncActions.count <= limits.recordersPerRun else {
            throw .limitReached("asyncActions: \(asyncActions.count) recorders: a task run may have at most \(limits.recordersPerRun)")
        }
        var seen = Set<String>()
        for (i, action) in asyncActions.enumerated() {
            guard seen.insert(action.identifier).inserted else {
                throw .invalidConfiguration("asyncActions[\(i)].identifier: \(action.identifier.debugDescription) is used twice in this task run")
            }
            if case .motion(let o) = action.options, o.preRollSeconds > ringSeconds {
                throw .invalidConfiguration("asyncActions[\(i)].preRollSeconds: expected at most ringSeconds (\(ringSeconds))")
            }
        }
        if taskRunUUID == RandomUUID.null { throw .invalidConfiguration("taskRunUUID: the nil UUID cannot name a task run") }
        let uuid: UUID
        do {
            uuid = try taskRunUUID ?? RandomUUID.make()
        } catch {
            throw .storage("cannot make a task run UUID: \(error)")
        }
        let startDate = clock.now()
        let directory = "\(runsDirectory)/\(taskIdentifier)/\(ISO8601Timestamp.compactString(from: startDate))-\(uuid.uuidString)"
        let run = TaskRun(uuid: uuid, taskIdentifier: taskIdentifier, directory: directory,
                          actions: asyncActions, questionnaire: questionnaire, clock: clock, logger: logger)
        enum Admission { case admitted, duplicate, full, outOfDescriptors }
        let share = Self.descriptorShare(recorders: asyncActions.count)
        let admission = runs.withLock { r -> Admission in
            guard r.count < limits.taskRuns else { return .full }
            guard r[uuid] == nil, index.claim(uuid) else { return .duplicate }
            guard descriptors.take(share) else {
                index.release(uuid)
                return .outOfDescriptors
            }
            r[uuid] = run
            return .admitted
        }
        switch admission {
        case .admitted: break
        case .duplicate: throw .duplicateTaskRun(uuid.uuidString)
        case .full: throw .limitReached("too many task runs: recorderd records at most \(limits.taskRuns) at once")
        case .outOfDescriptors: throw .limitReached(Self.outOfDescriptors(share: share, budget: descriptors))
        }
        let devices = self.devices
        // The clock's state is asked for while the recorders start (a service may take a moment).
        async let clockAtStart = clockSynchronisation?.current()
        do {
            try Self.makeRunDirectory(directory)
            let errors = try await run.perform { () throws(TaskRunError) -> [ErrorResult] in try run.begin(devices: devices, actions: asyncActions) }
            if let state = await clockAtStart {
                _ = try? await run.perform(touching: false) { run.noteClockAtStart(state) }
            }
            logger.info("task run started", metadata: ["taskRun": "\(uuid)", "task": "\(taskIdentifier)", "directory": "\(directory)"])
            return StartedTaskRun(taskRunUUID: uuid, runDirectory: directory, errors: errors)
        } catch {
            // Nothing was recorded: the run leaves no trace, and its UUID may be used again.
            _ = try? await run.perform(touching: false) { run.abandonStart() }
            try? FileManager.default.removeItem(atPath: directory)
            remove(run)
            index.release(uuid)
            logger.error("task run not started", metadata: ["taskRun": "\(uuid)", "error": "\(error)"])
            throw error
        }
    }

    /// The descriptors a run with `recorders` recorders holds at most.
    static func descriptorShare(recorders: Int) -> Int {
        DaemonLimits.descriptorsPerRun + recorders * DaemonLimits.descriptorsPerRecorder
    }

    /// Takes `run` out of the recording ones; its descriptors go back once (two requests may end
    /// the same run, or end it while its start fails).
    private func remove(_ run: TaskRun) {
        if runs.withLock({ $0.removeValue(forKey: run.uuid) != nil }) { descriptors.give(Self.descriptorShare(recorders: run.actionCount)) }
    }

    /// Why a run that needs `share` descriptors is refused.
    static func outOfDescriptors(share: Int, budget: DescriptorBudget) -> String {
        "out of open files: this task run needs \(share) and \(max(0, budget.available)) of the \(budget.limit) recorderd may open "
            + "for connections and task runs are free (finish a task run or close connections, or raise LimitNOFILE)"
    }

    /// Creates a run's directory; it must not exist (the UUID makes it unique).
    static func makeRunDirectory(_ directory: String) throws(TaskRunError) {
        let parent = PathText.parent(of: directory)
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw .storage("cannot create \(parent): \(ErrorText.reason(of: error))")
        }
        guard mkdir(directory, 0o750) == 0 else {
            let code = errno
            if code == EEXIST { throw .duplicateTaskRun(PathText.lastComponent(of: directory)) }
            throw .storage("cannot create \(directory): \(String(cString: strerror(code)))")
        }
        TaskResultStore.syncDirectory(parent)
    }

    /// `step.start` of the step at `path` (a valid `StepPath`) of the run `uuid`.
    public func startStep(_ uuid: UUID, path: String) async throws(TaskRunError) -> StepBoundaryOutcome {
        let run = try run(uuid)
        return try await run.perform { () throws(TaskRunError) -> StepBoundaryOutcome in try run.startStep(path) }
    }

    /// `step.finish` of the step at `path` of the run `uuid`, with the answers it collected
    /// (valid as `AnswerResult.listProblem` has them).
    public func finishStep(_ uuid: UUID, path: String, results: [AnswerResult]? = nil) async throws(TaskRunError) -> StepBoundaryOutcome {
        let run = try run(uuid)
        return try await run.perform { () throws(TaskRunError) -> StepBoundaryOutcome in try run.finishStep(path, results: results) }
    }

    /// `step.start` (or `step.finish` when `finishing`) without awaiting it: runs on the run's
    /// queue, which calls `respond` with the outcome. False, and nothing done, when the run is
    /// unknown. The daemon's fast path for step boundaries: no task hands the answer back.
    /// `onCallerThread`: first try applying it right here, when the run's queue is idle
    /// (`TaskRun.boundaryIfIdle`), and call `respond` before returning. Only from a thread that
    /// may wait briefly (the control server's event loop), never from the cooperative pool.
    public func submitStep(_ uuid: UUID, path: String, results: [AnswerResult]?, finishing: Bool, onCallerThread: Bool = false,
                           respond: @escaping @Sendable (Result<StepBoundaryOutcome, TaskRunError>) -> Void) -> Bool {
        guard let run = runs.withLock({ $0[uuid] }) else { return false }
        if onCallerThread, let outcome = run.boundaryIfIdle(path, finishing: finishing, results: results) {
            respond(outcome)
            return true
        }
        run.submit(respond: respond) { () throws(TaskRunError) -> StepBoundaryOutcome in try run.boundary(path, finishing: finishing, results: results) }
        return true
    }

    /// Calls `deliver` with each final summary of the step at `stepPath` by the analyses
    /// `identifiers` of the run `uuid` (a `step.finish` answered with provisional ones): once the
    /// analysis settles, or its recorder stops. Nothing when the run is gone.
    public func whenSummariesFinal(_ uuid: UUID, stepPath: String, identifiers: [String],
                                   deliver: @escaping @Sendable (GaitStepSummary) -> Void) {
        guard let run = runs.withLock({ $0[uuid] }) else { return }
        run.queue.async { run.whenSummariesFinal(ofStep: stepPath, identifiers: identifiers, deliver: deliver) }
    }

    /// Ends a run with `status` and removes it; returns its final result and, when its manifest
    /// could not be written, why (the run is over either way; its files stay).
    func close(_ run: TaskRun, status: TaskRunStatus) async -> (TaskResult, StorageError?) {
        run.lastActivity.withLock { $0 = clock.uptime() }
        // The clock's state is asked for while the recorders stop: the run ends when asked to,
        // not after a time service's answer.
        async let clockAtEnd = clockSynchronisation?.current()
        let closed: ((TaskResult, StorageError?), ending: Bool) = await QueueHandOff.callback { deliver in
            run.queue.async {
                let ending = !run.rules.isFinished
                run.end(status: status) { deliver((($0, $1), ending)) }
            }
        }
        // Only the request that ended the run adds to its manifest (one that found it ended has
        // no final result to amend), and only a manifest that was written.
        var outcome = closed.0
        if let state = await clockAtEnd, closed.ending, outcome.1 == nil {
            let final = outcome.0
            outcome.0 = await QueueHandOff.callback { deliver in
                run.queue.async { deliver(run.recordClockAtEnd(state, in: final)) }
            }
        }
        let record = EndedTaskRun(taskRunUUID: run.uuid, taskIdentifier: run.taskIdentifier, status: status,
                                  ended: ISO8601Timestamp.string(from: clock.now()))
        remove(run)
        ended.withLock { e in
            e.append(record)
            if e.count > EndedTaskRun.kept { e.removeFirst(e.count - EndedTaskRun.kept) }
        }
        logger.info("task run ended", metadata: ["taskRun": "\(run.uuid)", "status": "\(status.rawValue)"])
        return outcome
    }

    static func unsaved(_ run: TaskRun, _ status: TaskRunStatus, _ failure: StorageError) -> TaskRunError {
        .storage("task run \(run.uuid) ended (\(status.rawValue)) but its manifest could not be written: \(failure); its files are in \(run.directory)")
    }

    /// `task.finish`.
    public func finish(_ uuid: UUID) async throws(TaskRunError) -> TaskResult {
        let run = try run(uuid)
        let (result, failure) = await close(run, status: .finished)
        if let failure { throw Self.unsaved(run, .finished, failure) }
        return result
    }

    /// `task.cancel`: closes the recorders and deletes the run's files unless `keepFiles`.
    public func cancel(_ uuid: UUID, keepFiles: Bool) async throws(TaskRunError) -> TaskResult {
        let run = try run(uuid)
        let (result, failure) = await close(run, status: .cancelled)
        if !keepFiles {
            // The directory is this run's own: its UUID was unique in the data directory.
            try? FileManager.default.removeItem(atPath: run.directory)
            index.release(uuid)
            return result
        }
        if let failure { throw Self.unsaved(run, .cancelled, failure) }
        return result
    }

    /// Finishes, as `abandoned`, the runs without a request for `timeout` seconds (all at once:
    /// each waits for its recorders' last samples).
    @discardableResult
    public func sweepOrphans(timeout: Double) async -> [UUID] {
        let now = clock.uptime()
        let idle = runs.withLock { r in r.values.filter { now - $0.lastActivity.withLock { $0 } >= timeout } }
        await withTaskGroup(of: Void.self) { group in
            for run in idle {
                logger.warning("task run abandoned", metadata: ["taskRun": "\(run.uuid)", "idleSeconds": "\(now - run.lastActivity.withLock { $0 })"])
                group.addTask { _ = await self.close(run, status: .abandoned) }
            }
        }
        return idle.map(\.uuid)
    }

    /// Ends every run as `interrupted` (shutdown) and refuses new ones.
    public func interruptAll() async {
        closing.store(true, ordering: .releasing)
        let all = runs.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for run in all { group.addTask { _ = await self.close(run, status: .interrupted) } }
        }
    }

    /// The runs recording now (from their published state: no run's queue is waited for).
    public func active() -> [ActiveTaskRun] {
        let all = runs.withLock { Array($0.values) }
        return all.map { $0.published.withLock { $0 } }.sorted { $0.taskRunUUID.uuidString < $1.taskRunUUID.uuidString }
    }

    /// The newest runs that ended since recorderd started, oldest first.
    public func recentlyEnded() -> [EndedTaskRun] {
        ended.withLock { $0 }
    }

    /// Task runs recording now.
    public var count: Int { runs.withLock { $0.count } }

    /// The runs of the data directory, recording or not.
    public var catalog: RunCatalog { RunCatalog(runsDirectory: runsDirectory) }

    /// `runs.delete`: removes a run that is not recording, with all its files. Blocking file
    /// I/O: call it from a blocking queue. (A run is in `runs` before its directory exists and
    /// until its manifest is final, and its UUID is never used again: a run found absent here
    /// cannot start recording into the directory being removed.)
    public func deleteRun(_ run: String) throws(RunCatalogError) -> DeletedRun {
        let catalog = self.catalog
        let entry = try catalog.resolve(run)
        guard runs.withLock({ $0[entry.uuid] }) == nil else { throw .runInUse(entry.uuid.uuidString) }
        let size = DirectorySize.bytes(of: entry.directory)
        try catalog.delete(entry)
        logger.info("task run deleted", metadata: ["taskRun": "\(entry.uuid)", "directory": "\(entry.directory)"])
        return DeletedRun(taskRunUUID: entry.uuid, runDirectory: entry.directory, freedBytes: size)
    }
}
