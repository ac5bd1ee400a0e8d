import Dispatch

/// Runs blocking work off the cooperative pool (on `BlockingPool`, or wherever a callback API
/// runs it) and awaits its result.
///
/// The result travels through a `LockedValue`, not through the continuation: ThreadSanitizer
/// sees the happens-before of a pthread mutex, but not always that of a continuation resumed on
/// a Dispatch thread, and would report the hand-off of every object made there as a race. With
/// the lock, a TSan report is a real race.
/// Bridge (a Dispatch queue or thread → an awaiting task): engine work is confined to run queues
/// and device threads, and callers are async; one resume per call, under a lock TSan sees.
public enum QueueHandOff {
    /// Starts work that reports once through `deliver` (from any thread) and awaits that report.
    public static func callback<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
        let box = LockedValue<T?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            start { value in
                box.withLock { $0 = value }
                continuation.resume()
            }
        }
        return box.withLock { value in
            defer { value = nil }
            return value!
        }
    }

    /// `body` on a thread of `BlockingPool.shared` (blocking calls: device open, file I/O, an
    /// export); returns what it returned. Never on a global queue: see `BlockingPool` for why.
    public static func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await callback { deliver in BlockingPool.shared.submit { deliver(body()) } }
    }

    /// Starts `body` on a thread of `BlockingPool.shared` without waiting for it: blocking work
    /// nobody awaits (closing a live stream stops its device's sampling thread).
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        BlockingPool.shared.submit(body)
    }
}
