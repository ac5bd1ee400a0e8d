import Dispatch
import Synchronization

/// A task run's serial queue, which counts the work submitted to it and not yet done.
///
/// All work for a run's queue goes through here. That covers its requests, its recordings' drains
/// and the delayed finalizations. The recordings' sweep timers fire on `timers` and submit
/// through here too. So `syncIfIdle` can tell, without waiting, that nothing is queued or running. The
/// control server's event loop uses it to apply a step boundary on its own thread:
/// `DispatchQueue.sync` on an idle serial queue runs the block on the caller's thread. Waking the
/// queue's thread, and then the loop again with the reply, are two thread hand-offs on the path a
/// participant waits on.
public final class RunQueue: Sendable {
    /// The queue itself: what its work asserts it runs on.
    let queue: DispatchQueue
    /// Blocks submitted and not finished (the one `syncIfIdle` runs included).
    private let outstanding = Atomic<Int>(0)

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Asserts that the caller runs on the queue.
    @inline(__always)
    func precondition() {
        dispatchPrecondition(condition: .onQueue(queue))
    }

    /// Runs `body` on the queue later.
    func async(_ body: @escaping @Sendable () -> Void) {
        outstanding.add(1, ordering: .relaxed)
        queue.async { [self] in
            body()
            outstanding.subtract(1, ordering: .relaxed)
        }
    }

    /// Runs `body` on the queue once `seconds` have passed. The wait is not counted: until then
    /// the queue is idle for `syncIfIdle`.
    func async(after seconds: Double, _ body: @escaping @Sendable () -> Void) {
        Self.timers.asyncAfter(deadline: .now() + seconds) { [self] in async(body) }
    }

    /// Where the runs' timers fire (delayed work, the recordings' sweeps) to submit their work.
    /// A queue of its own, not a global one: on Linux Swift's cooperative pool runs on the
    /// global queues, and a timer there waits while tasks fill the pool (a test suite's
    /// synchronous tests delayed 100 runs' stop graces by seconds). Its handlers only submit.
    static let timers = DispatchQueue(label: "recorderd.run.timers")

    /// Runs `body` on the queue on the calling thread, only if nothing is queued or running there;
    /// nil, and `body` not run, otherwise. Call it only from a thread that may block briefly (an
    /// event loop, never the cooperative pool). Work submitted between the check and the block's
    /// start is rare. When it happens, `body` waits for that work: one drain at worst (which may
    /// end with its once-a-second `fdatasync`).
    func syncIfIdle<T>(_ body: () -> T) -> T? {
        guard outstanding.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return nil }
        defer { outstanding.subtract(1, ordering: .relaxed) }
        return queue.sync(execute: body)
    }

    /// Blocks submitted and not yet finished (for tests).
    var outstandingCount: Int { outstanding.load(ordering: .relaxed) }
}
