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

    /// Records the clock's state at the run's end (on the queue, before `end`).
    func noteClockAtEnd(_ state: ClockSynchronisation) {
        onQueue()
        guard !rules.isFinished else { return }
        result.clockAtEnd = state
    }
}
