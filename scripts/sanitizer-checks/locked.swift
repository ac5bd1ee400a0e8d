// The same counter under recorderd's LockedValue (a pthread mutex): ThreadSanitizer must see the
// lock and report nothing. (Under Synchronization.Mutex, whose futex calls TSan cannot see, it
// reports a race: the reason recorderd's locks are pthread-based.)
import Foundation

final class LockedValue<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value
    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}

let counter = LockedValue(0)
let done = DispatchSemaphore(value: 0)
let threads = (0..<4).map { _ in Thread { for _ in 0..<10_000 { counter.withLock { $0 += 1 } }; done.signal() } }
threads.forEach { $0.start() }
for _ in 0..<4 { done.wait() }
print(counter.withLock { $0 })
