import RecorderModel

extension TaskRun {
    /// Applies a step boundary on the calling thread when the run's queue is idle (never waiting for it) and the
    /// boundary only changes the step. nil, with nothing done, when the queue has work, when the
    /// boundary would start or stop a recorder (that opens devices and files), or when it is a
    /// `step.finish` whose analyses summarise the step (that drains and writes). The daemon's
    /// event loop tries this first and submits the boundary (`submit`) when it gets nil.
    func boundaryIfIdle(_ path: String, finishing: Bool, results: [AnswerResult]?) -> Result<StepBoundaryOutcome, TaskRunError>? {
        let outcome = queue.runIfIdle { () -> Result<StepBoundaryOutcome, TaskRunError>? in
            guard isInlineBoundary(path, finishing: finishing) else { return nil }
            return Result { () throws(TaskRunError) in try boundary(path, finishing: finishing, results: results) }
        }
        guard let outcome = outcome ?? nil else { return nil }  // `submit` touches the run instead
        lastActivity.withLock { $0 = clock.uptime() }
        return outcome
    }

    /// `step.start`, or `step.finish` with the step's answers when `finishing` (on the queue).
    func boundary(_ path: String, finishing: Bool, results: [AnswerResult]?) throws(TaskRunError) -> StepBoundaryOutcome {
        finishing ? try finishStep(path, results: results) : try startStep(path)
    }

    /// Whether the boundary changes only the step path: no recorder starts or stops, and no
    /// analysis summarises the step. A boundary out of order qualifies: it is refused without
    /// any work.
    func isInlineBoundary(_ path: String, finishing: Bool) -> Bool {
        onQueue()
        if finishing, recordings.contains(where: { $0.analysis != nil }) { return false }
        var probe = rules
        guard let actions = try? (finishing ? probe.finishStep(path) : probe.startStep(path)) else { return true }
        return actions.allSatisfy { if case .changeStep = $0 { true } else { false } }
    }
}
