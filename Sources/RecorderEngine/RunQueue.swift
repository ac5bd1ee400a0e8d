import Dispatch
import Glibc
import RecorderRuntime
import Synchronization

/// A task run's serial queue, which counts the work submitted to it and not yet done, and which
/// a caller may borrow, without waiting, while it is idle.
///
/// All work for a run goes through here: its requests, its recordings' drains and the delayed
/// finalizations (the recordings' sweep timers fire on `timers` and submit through here too). So
/// `runIfIdle` can tell, without waiting, that nothing is queued or running. The control server's
/// event loop uses it to apply a step boundary that only changes the step on its own thread:
/// waking the queue's thread, and then the loop again with the reply, are two thread hand-offs on
/// the path a participant waits on (p50 ~1.6× with them, BENCHMARKS.md 2026-11-26).
///
/// The loop never waits on the run: `runIfIdle` takes the run only when no work is queued or
/// running, and otherwise returns nil at once (the caller submits instead). Work submitted while
/// the loop holds the run waits on the queue's own thread for the boundary to end, not the other
/// way round. (Before, `DispatchQueue.sync` could find a drain submitted between its check and its
/// start, and the loop then waited for that drain and its `fdatasync`.)
///
/// Confinement: whoever runs the run's work holds `exclusive` and is its `owner`; `precondition`
/// checks that the caller is (a drain or a boundary on the queue, or a boundary borrowed by the loop).
public final class RunQueue: Sendable {
    /// Where submitted work runs.
    let queue: DispatchQueue
    /// Blocks submitted and not finished (a borrowing `runIfIdle` included).
    private let outstanding = Atomic<Int>(0)
    /// Held while the run's work runs, on the queue or borrowed.
    private let exclusive = PThreadLock()
    /// The thread holding `exclusive` (`pthread_self`), 0 when none.
    private let owner = Atomic<UInt>(0)

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Asserts that the caller runs the run's work (on its queue, or borrowed by `runIfIdle`).
    @inline(__always)
    func precondition() {
        Swift.precondition(owner.load(ordering: .relaxed) == UInt(pthread_self()), "not on the run's queue")
    }

    /// Runs `body` as the run's work, on the calling thread, holding `exclusive`.
    @inline(__always)
    private func exclusively<T>(_ body: () -> T) -> T {
        owner.store(UInt(pthread_self()), ordering: .relaxed)
        defer { owner.store(0, ordering: .relaxed) }
        return body()
    }

    /// Runs `body` on the queue later.
    func async(_ body: @escaping @Sendable () -> Void) {
        outstanding.add(1, ordering: .relaxed)
        queue.async { [self] in
            exclusive.withLock { exclusively(body) }
            outstanding.subtract(1, ordering: .relaxed)
        }
    }

    /// Runs `body` on the queue once `seconds` have passed. The wait is not counted: until then
    /// the queue is idle for `runIfIdle`.
    func async(after seconds: Double, _ body: @escaping @Sendable () -> Void) {
        Self.timers.asyncAfter(deadline: .now() + seconds) { [self] in async(body) }
    }

    /// Where the runs' timers fire (delayed work, the recordings' sweeps) to submit their work.
    /// A queue of its own, not a global one: on Linux Swift's cooperative pool runs on the
    /// global queues, and a timer there waits while tasks fill the pool (a test suite's
    /// synchronous tests delayed 100 runs' stop graces by seconds). Its handlers only submit.
    static let timers = DispatchQueue(label: "recorderd.run.timers")

    /// Runs `body` as the run's work on the calling thread if nothing is queued or running; nil,
    /// and `body` not run, otherwise. Never waits.
    func runIfIdle<T>(_ body: () -> T) -> T? {
        guard outstanding.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else { return nil }
        defer { outstanding.subtract(1, ordering: .releasing) }
        // Free: every block releases it before it stops counting as outstanding.
        return exclusive.withLockIfFree { exclusively(body) }
    }

    /// Runs `body` as the run's work on the queue and waits for it (for tests).
    func sync<T>(_ body: () -> T) -> T {
        queue.sync { exclusive.withLock { exclusively(body) } }
    }

    /// Blocks submitted and not yet finished (for tests).
    var outstandingCount: Int { outstanding.load(ordering: .relaxed) }
}
