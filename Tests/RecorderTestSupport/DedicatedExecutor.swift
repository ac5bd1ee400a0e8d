import Dispatch

/// A task executor with a thread of its own, for the few tests whose assertions depend on how
/// soon an `await` resumes (a step change timed against the replay's rows): run under
/// `withTaskExecutorPreference(DedicatedExecutor(...))`, their jobs go to this serial queue rather
/// than the cooperative pool, which the suite's synchronous tests fill while they compute (two
/// threads on the CI machine: resumptions have waited there for over four seconds).
///
/// At default QoS, as the recorders' queues and the daemon's threads: libdispatch on Linux sets a
/// queue thread's nice value from its QoS (measured: `userInitiated` −2, default 0, `utility` 2,
/// `background` 10), and these tests parse files and decode streams on it.
public final class DedicatedExecutor: TaskExecutor {
    private let queue: DispatchQueue

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
