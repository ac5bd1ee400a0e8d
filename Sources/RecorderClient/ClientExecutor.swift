import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// The client's reader thread as a task executor (`RecorderClient.withReaderExecutor`).
///
/// A reply resumes its call's task from the reader thread. Without a preference, that task is
/// enqueued on the cooperative pool, and a pool thread (often on another CPU) is woken to run
/// it: one more wake-up per call. A task that prefers this executor is enqueued here instead,
/// and the reader thread runs it once it has dispatched the lines it read, before it waits for
/// the socket again. Between replies the thread waits in `poll` on the socket and, once
/// `withReaderExecutor` has been used, a wake-up pipe: a job enqueued from another thread writes a
/// byte to it.
///
/// Jobs run on the reader thread, so they must not block: while one runs, no reply, stream batch
/// or other job of this connection is handled. Once the connection has ended and the reader
/// thread has run what was queued, jobs go to the global concurrent executor.
/// Bridge (the client's reader thread ⇄ tasks): resuming a caller on the thread that read its
/// reply saves two thread wake-ups per call (BENCHMARKS.md, the step round trip).
public final class ClientExecutor: TaskExecutor {
    /// What the reader thread is doing, as an enqueue sees it.
    enum Reader: Equatable {
        /// Running jobs or dispatching lines: it runs what is queued before it waits again.
        case running
        /// In `poll`; `wakeable`: the poll includes the wake-up pipe, so an enqueue writes to it.
        /// Without the pipe nothing can wake it, so jobs go to the global concurrent executor.
        case polling(wakeable: Bool)
    }

    struct State {
        var jobs: [UnownedJob] = []
        var reader: Reader = .running
        /// The reader thread has ended: jobs go to the global concurrent executor.
        var closed = false
        /// Tasks waiting in `ended()`, resumed as the reader thread ends.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        /// The reader thread, once it has started.
        var thread: pthread_t?
        /// The wake-up pipe, made by the first `withReaderExecutor` (a client that never uses it
        /// holds no more descriptors than its socket). A socket pair: its flags are set
        /// atomically, unlike `pipe`'s in Glibc's Swift module. Non-blocking, close-on-exec;
        /// written and closed only under the lock.
        var wake: (read: Int32, write: Int32)?
    }

    private let state = LockedValue(State())

    init() {}

    /// Makes the wake-up pipe, once (any thread). Until the reader thread next waits, it cannot be
    /// woken: jobs enqueued meanwhile run on the global concurrent executor. If no descriptor is
    /// left there is no pipe, and that stays so: jobs then run on the reader thread only when it
    /// is already awake (a reply resumes its call there).
    func arm() {
        state.withLock { s in
            guard !s.closed, s.wake == nil else { return }
            var fds: [Int32] = [-1, -1]
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            if socketpair(AF_UNIX, type, 0, &fds) == 0 { s.wake = (fds[0], fds[1]) }
        }
    }

    /// Whether the wake-up pipe is open (for tests).
    var holdsWakePipe: Bool { state.withLock { $0.wake != nil } }

    /// Queues `job` for the reader thread (from any thread).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let forward = state.withLock { s in
            if s.closed || s.reader == .polling(wakeable: false) { return true }
            if s.reader == .polling(wakeable: true), let wake = s.wake {
                s.reader = .running
                var byte: UInt8 = 1
                // A full pipe already holds a wake-up: EAGAIN loses nothing.
                _ = write(wake.write, &byte, 1)
            }
            s.jobs.append(unowned)
            return false
        }
        if forward { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }

    /// Whether the caller runs on the reader thread. Never once the reader thread has ended: its
    /// `pthread_t` names a thread only while it lives, and glibc gives a new thread the stack (so
    /// the `pthread_t`) of one that has ended — a pool thread running a job after the end could
    /// otherwise pass for the reader (a plain suite in CI, stop 64).
    var isCurrent: Bool {
        state.withLock { s in !s.closed && s.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Returns once the reader thread has run its last job (for tests): the caller resumes as a
    /// later job, so on the global concurrent executor.
    func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s in
                if s.closed { return true }
                s.endWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: The reader thread's side

    /// Records the calling thread as the reader (once, when it starts).
    func adoptCurrentThread() {
        state.withLock { $0.thread = pthread_self() }
    }

    /// Runs the queued jobs, and the jobs they queue, until none is left (reader thread only).
    /// `closing` (the connection has ended; once): then later jobs go to the global concurrent
    /// executor, and the pipe is closed.
    func runQueued(closing: Bool = false) {
        while true {
            var endWaiters: [CheckedContinuation<Void, Never>] = []
            let jobs = state.withLock { s in
                defer { s.jobs.removeAll(keepingCapacity: !closing) }
                if closing, s.jobs.isEmpty {
                    s.closed = true
                    swap(&endWaiters, &s.endWaiters)
                    if let wake = s.wake {
                        Glibc.close(wake.read)
                        Glibc.close(wake.write)
                        s.wake = nil
                    }
                }
                return s.jobs
            }
            // Outside the lock: a resumption enqueues its job, which takes it.
            for waiter in endWaiters { waiter.resume() }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// Waits until `descriptor` is readable (true) or a job is queued (false), on the reader
    /// thread; true also when `poll` fails, so that the read sees the error.
    func wait(forReading descriptor: Int32) -> Bool {
        // Only this thread closes the pipe, so it stays open through the poll.
        let (queued, wake) = state.withLock { s -> (Bool, Int32?) in
            if !s.jobs.isEmpty { return (true, nil) }
            s.reader = .polling(wakeable: s.wake != nil)
            return (false, s.wake?.read)
        }
        if queued { return false }
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake ?? -1, events: Int16(POLLIN), revents: 0)]
        var result: Int32
        repeat {
            result = poll(&fds, wake == nil ? 1 : 2, -1)
        } while result < 0 && errno == EINTR
        state.withLock { $0.reader = .running }
        if let wake, fds[1].revents != 0 {
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(wake, &bytes, bytes.count) > 0 {}
        }
        return result < 0 || fds[0].revents != 0
    }
}
