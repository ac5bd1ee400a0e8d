import RecorderModel

extension TaskRun {
    /// Records the clock's state at the run's start (on the queue) and writes the manifest again.
    /// Nothing once the run has ended.
    func noteClockAtStart(_ state: ClockSynchronisation) {
        onQueue()
        guard !rules.isFinished else { return }
        result.clockAtStart = state
        persist()
    }

    /// After `end`, on the queue: the final manifest `final` with the clock's state at the end
    /// (asked while the recorders stopped, so that the end is where it was asked for), written
    /// again. When that write fails, the manifest on disk stays `final` and so does the answer.
    func recordClockAtEnd(_ state: ClockSynchronisation, in final: TaskResult) -> TaskResult {
        onQueue()
        var amended = final
        amended.clockAtEnd = state
        if let failure = persistQueue.sync(execute: { writeManifest(amended) }) {
            logger.warning("task run's manifest kept without the clock's state at its end", metadata: ["taskRun": "\(uuid)", "error": "\(failure)"])
            return final
        }
        result.clockAtEnd = state
        return amended
    }
}
