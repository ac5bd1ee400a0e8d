import RecorderEngine
import RecorderModel
import RecorderProtocol

// The control protocol's messages made from the engine's types and back: the engine speaks its
// own types, the daemon maps them to and from the wire here.

extension TaskStartResult {
    /// The `task.start` answer for a run the registry started.
    init(_ started: StartedTaskRun) {
        self.init(taskRunUUID: started.taskRunUUID, runDirectory: started.runDirectory, errors: started.errors.isEmpty ? nil : started.errors)
    }
}

extension StepResult {
    /// The `step.start` / `step.finish` answer for what the boundary did (summaries absent when
    /// there are none).
    init(_ outcome: StepBoundaryOutcome) {
        self.init(uptime: outcome.uptime, startedRecorders: outcome.startedRecorders, stoppedRecorders: outcome.stoppedRecorders,
                  summaries: outcome.gait.isEmpty ? nil : outcome.gait, heartRate: outcome.heartRate.isEmpty ? nil : outcome.heartRate)
    }
}

extension RunQuery {
    /// The catalog's query for `runs.list`'s params.
    init(_ params: RunsListParams) {
        self.init(taskIdentifier: params.taskIdentifier, status: params.status, since: params.since, until: params.until,
                  limit: params.limit, offset: params.offset)
    }
}

extension RunsListResult {
    init(_ page: RunPage) {
        self.init(runs: page.runs, total: page.total, offset: page.offset)
    }
}

extension RunDetails {
    init(_ run: StoredRun) {
        self.init(summary: run.summary, taskResult: run.taskResult)
    }
}

extension RunDeleted {
    init(_ run: DeletedRun) {
        self.init(taskRunUUID: run.taskRunUUID, runDirectory: run.runDirectory, freedBytes: run.freedBytes)
    }
}
