import Foundation
import RecorderModel

/// The client's reader thread as a task executor (`RecorderClient.withReaderExecutor`).
///
/// A reply resumes its call's task from the reader thread. Without a preference, that task is
/// enqueued on the cooperative pool, and a pool thread (often on another CPU) is woken to run
/// it: one more wake-up per call. A task that prefers this executor is enqueued here instead,
/// and the reader thread runs it once it has dispatched the lines it read, before it waits for
/// the socket again. Between replies the thread waits in `poll` on the socket and a wake-up pipe;
/// a job enqueued from another thread writes a byte to the pipe.
///
/// Jobs run on the reader thread, so they must not block: while one runs, no reply, stream batch
/// or other job of this connection is handled. Once the connection has ended and the reader
/// thread has run what was queued, jobs go to the global concurrent executor.
public final class ClientExecutor: TaskExecutor {
    struct State {
        var jobs: [UnownedJob] = []
        /// The reader is in (or about to enter) `poll`: an enqueue must write to the pipe.
        var waiting = false
        /// The reader thread has ended: jobs go to the global concurrent executor.
        var closed = false
        /// The reader thread, once it has started.
        var reader: pthread_t?
    }

    private let state = LockedValue(State())
    /// The wake-up pipe (a socket pair: its flags are set atomically, unlike `pipe`'s in Glibc's
    /// Swift module): non-blocking, close-on-exec; written and closed only under the lock.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// A pipe for the wake-ups; nil when no descriptor is left.
    init?() {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { return nil }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    /// Queues `job` for the reader thread (from any thread).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let forward = state.withLock { s in
            if s.closed { return true }
            s.jobs.append(unowned)
            if s.waiting {
                s.waiting = false
                var byte: UInt8 = 1
                // A full pipe already holds a wake-up: EAGAIN loses nothing.
                _ = write(wakeWrite, &byte, 1)
            }
            return false
        }
        if forward { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }

    /// Whether the caller runs on the reader thread.
    var isCurrent: Bool {
        state.withLock { s in s.reader.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: The reader thread's side

    /// Records the calling thread as the reader (once, when it starts).
    func adoptCurrentThread() {
        state.withLock { $0.reader = pthread_self() }
    }

    /// Runs the queued jobs, and the jobs they queue, until none is left (reader thread only).
    /// `closing` (the connection has ended; once): then later jobs go to the global concurrent
    /// executor, and the pipe is closed.
    func runQueued(closing: Bool = false) {
        while true {
            let jobs = state.withLock { s in
                defer { s.jobs.removeAll(keepingCapacity: !closing) }
                if closing, s.jobs.isEmpty {
                    s.closed = true
                    Foundation.close(wakeRead)
                    Foundation.close(wakeWrite)
                }
                return s.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// Waits until `descriptor` is readable (true) or a job is queued (false), on the reader
    /// thread; true also when `poll` fails, so that the read sees the error.
    func wait(forReading descriptor: Int32) -> Bool {
        let queued = state.withLock { s in
            s.waiting = s.jobs.isEmpty
            return !s.waiting
        }
        if queued { return false }
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var result: Int32
        repeat {
            result = poll(&fds, 2, -1)
        } while result < 0 && errno == EINTR
        state.withLock { $0.waiting = false }
        if fds[1].revents != 0 {
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &bytes, bytes.count) > 0 {}
        }
        return result < 0 || fds[0].revents != 0
    }
}
