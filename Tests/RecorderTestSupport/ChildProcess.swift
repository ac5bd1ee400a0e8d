import CChildProcess
import CRecorderRuntime
import Foundation
import RecorderModel
import RecorderRuntime
import Testing

/// Runs a blocking call on a Dispatch thread: tests must not block the cooperative pool, which
/// the in-process server needs.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await QueueHandOff.blocking { Result { try body() } }.get()
}

/// A child process with a deadline, stopped by its PID.
///
/// Spawned with `posix_spawn` (every descriptor above stderr closed in the child, signal mask and
/// dispositions reset, its own process group) and waited for through a pidfd and `waitpid`.
/// Foundation's `Process` is not used: it learns of an exit when a socket it gives the child
/// reaches end of file, and a child spawned at the same moment on another thread can inherit
/// that socket and hold it open — a long-lived one (jackd, gpsd) then hid an exit for ever and
/// `waitUntilExit` spun.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `status` and `captured` are LockedValues; the rest is immutable after init.
    public let pid: Int32
    public let output = Pipe()
    /// A descriptor that polls readable once the child has exited (-1 where pidfds are missing).
    private let pidfd: Int32
    /// The exit status once reaped: the code, or the number of the signal that ended it.
    private let status = LockedValue<Int32?>(nil)
    /// Output read before the end (`printedSoFar`).
    private let captured = LockedValue<[UInt8]>([])

    /// `environment`: variables added to (or replacing) the test's own and `SWIFTNIO_STRICT=1`; `standardInput`: a file
    /// the child reads as its standard input (default `/dev/null`).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], standardInput: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let devNull = open(standardInput ?? "/dev/null", O_RDONLY | O_CLOEXEC)
        guard devNull >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT) }
        defer { close(devNull) }
        let out = output.fileHandleForWriting.fileDescriptor
        posix_spawn_file_actions_adddup2(&actions, devNull, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, out, STDERR_FILENO)
        recorderd_spawn_closefrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        // A spawned recorderd traps on work scheduled on a shut-down event loop (`SWIFTNIO_STRICT`,
        // which the test process has too; said here for the benchmarks, which spawn with this).
        let variables = ProcessInfo.processInfo.environment.merging(["SWIFTNIO_STRICT": "1"]) { $1 }.merging(environment) { $1 }
            .map { "\($0)=\($1)" }
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, &argv, &envp)
        output.fileHandleForWriting.closeFile()
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        pid = child
        pidfd = recorderd_pidfd_open(child)
    }

    /// True until the child has exited (and then reaps it).
    public var isRunning: Bool { !reaped() }

    /// Reaps the child without blocking; true once it has exited.
    private func reaped() -> Bool {
        status.withLock { status in
            if status != nil { return true }
            var raw: Int32 = 0
            let r = waitpid(pid, &raw, WNOHANG)
            guard r == pid else { return false }
            // Exited: the code; ended by a signal: its number (as Foundation reported it).
            status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            return true
        }
    }

    /// Sends `signal` and waits for the exit (at most `timeout` s, then SIGKILL).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 15) async throws -> Int32 {
        if isRunning { kill(pid, signal) }
        return try await wait(timeout: timeout)
    }

    /// Waits for the exit (at most `timeout` s, then SIGKILL); returns the status.
    @discardableResult
    public func wait(timeout: Double) async throws -> Int32 {
        try await offPool { self.waitBlocking(timeout: timeout) }
    }

    /// Blocks until the exit (at most `timeout` s, then SIGKILL); returns the status.
    public func waitBlocking(timeout: Double) -> Int32 {
        let deadline = Deadline(seconds: timeout)
        var killed = false
        while !reaped() {
            let left = deadline.remaining
            if left <= 0 && !killed {
                Issue.record("process \(pid) did not exit within \(timeout) s")
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                killed = true
            }
            // The pidfd polls readable at the exit; without one, look again every 10 ms.
            var p = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            if pidfd < 0 || poll(&p, 1, Int32(max(10, min(1000, left * 1000)))) < 0 { usleep(10_000) }
        }
        return status.withLock { $0 ?? -1 }
    }

    /// Everything the process printed (after it exited).
    public var printed: String {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        return captured.withLock { c in
            c.append(contentsOf: rest)
            return String(decoding: c, as: UTF8.self)
        }
    }

    /// What the process has printed so far, while it runs: reads what waits on the pipe without
    /// blocking (kept, so `printed` still returns everything).
    public func printedSoFar() -> String {
        let fd = output.fileHandleForReading.fileDescriptor
        return captured.withLock { c in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 0) == 1, p.revents & Int16(POLLIN) != 0 else { break }
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { break }
                c.append(contentsOf: buffer[0..<n])
            }
            return String(decoding: c, as: UTF8.self)
        }
    }

    /// Whatever happened to the test (an expectation thrown before its `stop`, a time limit), the
    /// child and everything it started in its process group (gpsfake's gpsd, a namespace script's
    /// generator) end with it: left running, they held devices, sockets and names (jackd's server
    /// name) that the tests after them then failed on. A group whose leader has exited keeps its
    /// number while any member lives, so the number names no other process.
    deinit {
        kill(-pid, SIGKILL)
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitBlocking(timeout: 10)
        }
        if pidfd >= 0 { close(pidfd) }
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

