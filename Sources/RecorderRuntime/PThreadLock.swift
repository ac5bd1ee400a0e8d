import FoundationEssentials
import Glibc

/// A `pthread_mutex_t`, which ThreadSanitizer sees (unlike `Synchronization.Mutex`): the lock
/// under `LockedValue`, and on its own where work is serialised with no value to guard (a
/// device's open, start and stop). (A `LockedValue<Void>` would not do there: TSan reports the
/// inout access of a zero-sized value at the object's own address, where unrelated reads of the
/// object happen, as a race.)
///
/// `@unchecked Sendable`: it holds only the mutex, which is made for sharing.
public final class PThreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` holding the lock if it is free now; nil, and `body` not run, if another thread
    /// holds it. Never waits.
    @inline(__always)
    public func withLockIfFree<Result>(_ body: () -> Result) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
