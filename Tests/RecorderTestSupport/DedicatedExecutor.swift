import Dispatch

/// A task executor with a thread of its own, for work in the test process that must not wait
/// behind the suite's synchronous tests, which fill the cooperative pool while they compute (two
/// threads on the CI machine: resumptions have waited there for over ten seconds): an in-process
/// daemon's connections (`TestDaemon`), and the few tests whose assertions depend on how soon an
/// `await` resumes (a step change timed against the replay's rows, a log played in real time),
/// run under `withTaskExecutorPreference(DedicatedExecutor(...))`. Their jobs go to this serial
/// queue.
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
