import Foundation
import RecorderRuntime
import Testing

/// Runs a blocking call on a thread of the tests' own pool: tests must not block the cooperative
/// pool, which the in-process server needs, nor take the daemon's `BlockingPool.shared` (eight
/// threads, which in-process daemons need for their devices and files): waits of up to a minute
/// there (a notify socket's READY=1, a socket's next line) once held it while in-process daemons'
/// requests queued behind them, and their clients' reads timed out in a CI rehearsal.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await QueueHandOff.callback { deliver in testBlockingPool.submit { deliver(Result { try body() }) } }.get()
}

/// The tests' blocking calls' threads (`offPool`).
let testBlockingPool = BlockingPool(name: "test-blocking", limit: 128)

/// A child process of a test, with a deadline, stopped by its PID.
///
/// Spawned by posix_spawn (`SystemCall.spawn`: every descriptor above stderr closed in the child,
/// so a child spawned at the same moment on another thread cannot inherit another's pipe and hide
/// its end; a process group of its own) and reaped by a thread of its own blocked in waitid(2),
/// which hands the status to the waiters. Nothing of the wait runs on the cooperative pool: with
/// swift-subprocess, whose run ends through unstructured tasks on that pool, a generator's exit
/// reached a test 15 s after the child had been reaped while the suite's synchronous tests held
/// the pool's two threads (CI, 2026-11-28: "did not exit within 15.0 s", no /proc entry).
/// Standard output and error go to one pipe the test reads (`printed`, `printedSoFar`).
public final class ChildProcess: Sendable {
    public let pid: Int32
    /// The read end of the child's standard output and error.
    public let outputDescriptor: Int32
    /// The exit status once reaped (the code, or the number of the signal that ended it), and
    /// the waiters for it.
    private let exit = LockedValue<ExitState>(ExitState())
    /// Output read before the end (`printedSoFar`).
    private let captured = LockedValue<[UInt8]>([])

    struct ExitState {
        var status: Int32?
        var waiters: [Int: CheckedContinuation<Int32?, Never>] = [:]
        var nextWaiter = 0
    }

    /// Where the child's standard output and error go.
    public enum Output: Sendable, Equatable {
        /// Both to the pipe the test reads.
        case captured
        /// Standard output to the pipe, standard error to `/dev/null`.
        case capturedWithoutErrors
        /// Standard output to a file (created or truncated), such as `/dev/null`, and standard
        /// error with it (`withErrors`) or to `/dev/null`; nothing is captured.
        case file(String, withErrors: Bool = true)

        var discardsErrors: Bool {
            switch self {
            case .captured: false
            case .capturedWithoutErrors: true
            case .file(_, let withErrors): !withErrors
            }
        }
    }

    /// Starts `executable`. `environment`: variables added to (or replacing) the test's own and
    /// `SWIFTNIO_STRICT=1`; `standardInput`: a file the child reads as its standard input
    /// (default `/dev/null`); `output`: where its output goes (default: captured).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], standardInput: String? = nil,
                output: Output = .captured) async throws {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        func openOrThrow(_ path: String, _ flags: Int32) throws -> Int32 {
            let descriptor = open(path, flags | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT) }
            opened.append(descriptor)
            return descriptor
        }
        let input = try openOrThrow(standardInput ?? "/dev/null", O_RDONLY)
        let readEnd: Int32
        let writeEnd: Int32
        if case .file(let path, _) = output {
            readEnd = -1
            writeEnd = try openOrThrow(path, O_WRONLY | O_CREAT | O_TRUNC)
        } else {
            // Close-on-exec: no other child spawned meanwhile inherits them (this child gets the
            // write end as its standard output).
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            (readEnd, writeEnd) = (ends[0], ends[1])
            opened.append(writeEnd)
        }
        let errors = output.discardsErrors ? try openOrThrow("/dev/null", O_WRONLY) : writeEnd
        // A spawned recorderd traps on work scheduled on a shut-down event loop (`SWIFTNIO_STRICT`,
        // which the test process has too).
        var variables = ProcessInfo.processInfo.environment
        variables["SWIFTNIO_STRICT"] = "1"
        for (name, value) in environment { variables[name] = value }
        let spawned = SystemCall.spawn(executable, arguments: [executable] + arguments,
                                       environment: variables.map { "\($0.key)=\($0.value)" }, input: input, output: writeEnd,
                                       errors: errors, newProcessGroup: true)
        let pid: Int32
        switch spawned {
        case .success(let child): pid = child
        case .failure(let failure):
            if readEnd >= 0 { close(readEnd) }
            throw POSIXError(POSIXErrorCode(rawValue: failure.errno) ?? .ENOEXEC)
        }
        self.pid = pid
        outputDescriptor = readEnd
        // The reaper: a thread of its own, blocked in waitid until the child ends.
        let exit = self.exit
        let reaper = Thread {
            var info = siginfo_t()
            var status: Int32 = -1
            while true {
                if waitid(P_PID, id_t(pid), &info, WEXITED) == 0 {
                    let code = info._sifields._sigchld.si_status
                    status = code
                    break
                }
                if errno != EINTR { break }
            }
            let waiting = exit.withLock { e -> [CheckedContinuation<Int32?, Never>] in
                e.status = status
                defer { e.waiters = [:] }
                return Array(e.waiters.values)
            }
            for waiter in waiting { waiter.resume(returning: status) }
        }
        reaper.name = "test.reaper"
        reaper.stackSize = 1 << 17
        reaper.start()
    }

    /// Runs `executable` to its end (at most `timeout` s, then SIGKILL and an issue) and returns
    /// its exit status and what it printed.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           output: Output = .captured, timeout: Double = 600) async throws -> (status: Int32, printed: String) {
        let process = try await ChildProcess(executable, arguments, environment: environment, output: output)
        // Read while it runs, until the output ends (or the time is up): a child whose output
        // fills the pipe would otherwise wait for a reader forever.
        _ = try await process.printed(where: { _ in false }, timeout: timeout)
        let status = try await process.wait(timeout: timeout)
        return (status, process.printed)
    }

    /// True until the child has exited and been reaped.
    public var isRunning: Bool { exit.withLock { $0.status == nil } }

    /// Sends `signal` and waits for the exit (at most `timeout` s, then SIGKILL).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 15) async throws -> Int32 {
        if isRunning { kill(pid, signal) }
        return try await wait(timeout: timeout)
    }

    /// Waits for the exit (at most `timeout` s, then an issue and SIGKILL); returns the status.
    @discardableResult
    public func wait(timeout: Double) async throws -> Int32 {
        if let status = await exitStatus(within: timeout) { return status }
        // The kernel's view says whether it had not exited (its state and where it sleeps) or
        // its exit had not reached us yet (a zombie, or gone).
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "(no /proc entry)"
        let wchan = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "?"
        Issue.record("process \(pid) did not exit within \(timeout) s; /proc/\(pid)/stat: \(stat.prefix(200)), wchan: \(wchan)")
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        return await exitStatus(within: .infinity) ?? -1
    }

    /// The exit status, or nil when the child has not exited within `timeout` seconds (the exit
    /// is an event: no polling). Not an issue by itself: for a peer whose slow exit is not what a
    /// test is about.
    public func exitStatus(within timeout: Double) async -> Int32? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            let waiter = exit.withLock { e -> Int? in
                if let status = e.status {
                    continuation.resume(returning: status)
                    return nil
                }
                defer { e.nextWaiter += 1 }
                e.waiters[e.nextWaiter] = continuation
                return e.nextWaiter
            }
            guard let waiter, timeout.isFinite else { return }
            let exit = self.exit
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                exit.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume(returning: nil)
            }
        }
    }

    /// Everything the process printed (after it exited: reads to the end). A process it started
    /// that still holds the output (a services process outliving its daemon) cannot keep this
    /// waiting: after 5 s without output it returns what it has.
    public var printed: String {
        captured.withLock { c in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                var p = pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, 5000)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { break }
                let n = read(outputDescriptor, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                c.append(contentsOf: buffer[0..<n])
            }
            return String(decoding: c, as: UTF8.self)
        }
    }

    /// What the process has printed so far, while it runs: reads what waits on the pipe without
    /// blocking (kept, so `printed` still returns everything).
    public func printedSoFar() -> String {
        captured.withLock { c in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                var p = pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 0) == 1, p.revents & Int16(POLLIN) != 0 else { break }
                let n = read(outputDescriptor, &buffer, buffer.count)
                guard n > 0 else { break }
                c.append(contentsOf: buffer[0..<n])
            }
            return String(decoding: c, as: UTF8.self)
        }
    }

    /// Waits until what the process has printed satisfies `predicate` and returns it: each look
    /// follows the pipe becoming readable (an event, no polling interval; on a thread of its own,
    /// not the pool). nil when `timeout` seconds pass, or the output ends, first.
    public func printed(where predicate: @escaping @Sendable (String) -> Bool, timeout: Double) async throws -> String? {
        try await offPool {
            let deadline = Deadline(seconds: timeout)
            while true {
                let text = self.printedSoFar()
                if predicate(text) { return text }
                let left = deadline.remaining
                guard left > 0 else { return nil }
                var p = pollfd(fd: self.outputDescriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
                // Hung up with nothing more to read: the output has ended.
                if ready > 0, p.revents & Int16(POLLIN) == 0 {
                    let last = self.printedSoFar()
                    return predicate(last) ? last : nil
                }
            }
        }
    }

    /// Whatever happened to the test (an expectation thrown before its `stop`, a time limit), the
    /// child and everything it started in its process group (gpsfake's gpsd, a namespace script's
    /// generator) end with it: left running, they held devices, sockets and names (jackd's server
    /// name) that the tests after them then failed on. A group whose leader has exited keeps its
    /// number while any member lives, so the number names no other process; the leader itself
    /// is signalled only while it is not reaped (its number is then still its own).
    deinit {
        kill(-pid, SIGKILL)
        if isRunning { kill(pid, SIGKILL) }
        if outputDescriptor >= 0 { close(outputDescriptor) }
    }

    /// The built executable `name` (beside the test bundle).
    public static func executable(_ name: String) -> String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent(name).path) { return dir.appendingPathComponent(name).path }
            dir = dir.deletingLastPathComponent()
        }
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/\(name)").standardized.path
        return built
    }
}
