import Glibc

/// What a short-lived helper command printed (a service's status tool: `chronyc`): it runs as a
/// child with no input, its output and errors read together through a pipe, at most `limit`
/// bytes kept, and it is killed by its PID when `timeout` seconds pass. Blocking: call it from a
/// thread of its own (`QueueHandOff.blocking`), never the cooperative pool.
public struct CommandOutput: Sendable, Equatable {
    /// The exit status (`WEXITSTATUS`), or nil when a signal ended it (the timeout's included).
    public var status: Int32?
    /// What it printed (standard output and error), cut to the limit.
    public var text: String
    /// Whether it was killed for taking longer than the timeout.
    public var timedOut: Bool

    public init(status: Int32?, text: String, timedOut: Bool) {
        self.status = status
        self.text = text
        self.timedOut = timedOut
    }

    /// Runs `path` with `arguments` (the first being its name) and returns what it printed, or why
    /// it could not start.
    public static func run(_ path: String, arguments: [String], timeout: Double, limit: Int = 64 * 1024) -> Result<CommandOutput, SystemCallError> {
        // Non-blocking both ends: the helpers meant print a few lines, far below a pipe's 64 KiB.
        guard let ends = SystemCall.nonBlockingPipe() else { return .failure(SystemCallError(errno: errno)) }
        let pipeEnds = [ends.read, ends.write]
        let nothing = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            close(pipeEnds[0])
            if nothing >= 0 { close(nothing) }
        }
        let spawned = SystemCall.spawn(path, arguments: arguments, environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"],
                                       input: nothing >= 0 ? nothing : nil, output: pipeEnds[1], errors: pipeEnds[1], newProcessGroup: false)
        close(pipeEnds[1])
        let pid: pid_t
        switch spawned {
        case .success(let p): pid = p
        case .failure(let error): return .failure(error)
        }
        var kept: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timedOut = false
        let deadline = SystemClock.monotonicUptime() + timeout
        reading: while true {
            let left = deadline - SystemClock.monotonicUptime()
            if left <= 0 {
                timedOut = true
                break
            }
            var p = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 { continue }
            let n = read(pipeEnds[0], &buffer, buffer.count)
            switch n {
            case ..<0 where errno == EINTR || errno == EAGAIN: continue
            case ...0: break reading
            default: if kept.count < limit { kept.append(contentsOf: buffer[0..<min(n, limit - kept.count)]) }
            }
        }
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS (macros Swift does not import).
        let exited = status & 0x7f == 0
        return .success(CommandOutput(status: exited && !timedOut ? (status >> 8) & 0xff : nil, text: String(decoding: kept, as: UTF8.self), timedOut: timedOut))
    }
}
