import FoundationEssentials
import Glibc

/// A bounded set of threads of recorderd's own for blocking calls (a device's open, file I/O, an
/// export, closing a live stream): what `QueueHandOff.blocking` and `QueueHandOff.detach` run on.
///
/// Why not a global Dispatch queue: on Linux, Swift's tasks of default priority run on the global
/// root queue of default QoS, the very pool behind `DispatchQueue.global()`, as wide as the machine
/// has cores (two on the CI VM, four on a Pi 4). A blocked call there holds a thread of the
/// cooperative pool, and libdispatch adds one only after about a second of stall (measured on
/// this VM: a task waited 0.9 s behind two blocked global items, 1.9 s behind four).
///
/// Why bounded: a daemon no client can exhaust. Threads start on demand, up to `limit`; beyond
/// that, work waits in order for a free thread (it is delayed, never refused, and never holds the
/// cooperative pool). Idle threads park on a condition variable and are reused.
///
/// Its threads run 2 nice levels below the process's main thread: the work here (an export, a
/// plot, a run's files read for the web page) yields the CPU to the recorders' sampling and
/// writing threads. They are as wide as twice the cores, where the global queue they replace was
/// effectively as wide as the cores: at equal priority, more of them at once took more CPU from
/// the real-time audio capture in full test runs.
///
/// `@unchecked Sendable`: `queue`, `idle` and `threads` are only touched with `mutex` held.
/// Bridge (tasks → blocking threads): blocking calls (file I/O, device opens) never run on the
/// cooperative pool, and a bounded pool keeps a flood of them from creating a thread each.
public final class BlockingPool: @unchecked Sendable {
    /// The daemon's pool: twice the cores, at least eight threads (a Pi 4: eight).
    public static let shared = BlockingPool(name: "recorderd-io", limit: max(8, 2 * ProcessInfo.processInfo.activeProcessorCount))

    /// The most threads this pool runs at once.
    public let limit: Int
    private let name: String
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var idle = 0
    private var threads = 0

    /// A pool of at most `limit` threads, named `name` (ASCII, at most 15 bytes: Linux's limit).
    public init(name: String, limit: Int) {
        precondition(limit >= 1, "a pool needs a thread")
        precondition(name.utf8.count <= 15 && name.allSatisfy(\.isASCII), "a thread name Linux keeps whole")
        self.name = name
        self.limit = limit
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on a thread of the pool, as soon as one is free; returns at once.
    public func submit(_ body: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        queue.append(body)
        // Every parked thread, woken or about to be, takes one item: start a thread only for the
        // items no parked thread will take.
        let start = queue.count - head > idle && threads < limit
        if start { threads += 1 }
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        if start {
            DetachedThread.start { [self] in
                Self.prepareThread(name: name)
                work()
            }
        }
    }

    /// How many threads the pool has started (they stay, parked, once started).
    public var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return threads
    }

    /// True on a thread of any `BlockingPool`.
    public static var isOnPoolThread: Bool { pthread_getspecific(poolThreadKey) != nil }

    /// Set (to any non-nil value) on the threads of every pool.
    private static let poolThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "a thread-specific key")
        return key
    }()

    /// Names the calling thread as `top -H` and `ps -L` show it (as every thread of recorderd's
    /// is named: `SystemCall.setThreadName`), and sets its nice value (per thread on Linux; who 0
    /// is the calling thread) to 2 above the main thread's, whichever thread started it.
    private static func prepareThread(name: String) {
        SystemCall.setThreadName(name)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let nice = getpriority(which, id_t(getpid()))
        if errno == 0 { _ = setpriority(which, 0, min(19, nice + 2)) }
    }

    private func work() {
        pthread_setspecific(Self.poolThreadKey, UnsafeRawPointer(bitPattern: 1))
        while true {
            pthread_mutex_lock(mutex)
            while head == queue.count {
                idle += 1
                pthread_cond_wait(condition, mutex)
                idle -= 1
            }
            let body = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: queue.count <= 64)
                head = 0
            } else if head >= 256 {
                queue.removeFirst(head)  // a backlog that never empties does not grow the array
                head = 0
            }
            pthread_mutex_unlock(mutex)
            body()
        }
    }
}
