import FoundationEssentials
import Glibc
import Logging
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderRuntime
import ServiceLifecycle

/// The web page and the fleet link in a process of their own (`recorderd-services`), a client of
/// the control socket like `recorderctl`: they need Hummingbird, zlib and cairo, which the
/// recording process then never maps. Started first, before the control
/// socket answers: the socket answers (and systemd hears READY=1) once the page has said that it
/// listens or why it cannot (`pageSettled`: also when the child cannot be started, ends first, or
/// says nothing within `pageTimeout`), so a client that has its answer finds the page too. Started
/// again when it ends (`ServicesRestartRules`), and stopped with the daemon: SIGTERM, then SIGKILL
/// after `stopTimeout`. It asks for SIGTERM when its parent dies (`--parent`), so a killed daemon
/// leaves no page behind.
///
/// The process is started and waited for on a thread of its own, which lives as long as the
/// supervision (the parent-death signal follows the thread that started the child). That thread
/// also reads what the child reports on its descriptor 3 (`--report-fd 3`, a pipe's write end):
/// a JSON line of `ServicesReport` whenever its page's or its fleet link's state changes, for
/// `daemon.status`.
public final class ServicesProcess: Service {
    /// The program and its arguments (the first is the program's path again, by convention).
    public let executable: String
    public let arguments: [String]
    /// Whether the configuration has the page (`http`): without it, nothing is waited for.
    let expectsPage: Bool
    /// How long the control socket waits for the page's first word.
    let pageTimeout: Double
    let stopTimeout: Double
    let rules: ServicesRestartRules
    /// What `daemon.status` reports: the child's PID, how many were started, how the last ended.
    public let state: ServicesProcessStatus
    let logger: Logger
    /// Signalled once the first child's page has reported that it listens or why it cannot (or
    /// there is no page, the child could not be started, it ended first, or `pageTimeout` passed).
    public let pageSettled = OneShotEvent()
    /// The supervising thread's stop pipe (read end, write end), made when supervision starts.
    private let stopPipe = LockedValue<(Int32, Int32)?>(nil)

    public init(executable: String, arguments: [String], expectsPage: Bool, pageTimeout: Double = 10, stopTimeout: Double = 10,
                rules: ServicesRestartRules = ServicesRestartRules(), state: ServicesProcessStatus = ServicesProcessStatus(), logger: Logger) {
        self.state = state
        self.executable = executable
        self.arguments = arguments
        self.expectsPage = expectsPage
        self.pageTimeout = pageTimeout
        self.stopTimeout = stopTimeout
        self.rules = rules
        self.logger = logger
    }

    public func run() async throws {
        if Task.isCancelled || Task.isShuttingDownGracefully {
            pageSettled.signal()
            return
        }
        guard let pipe = SystemCall.nonBlockingPipe() else {
            logger.error("services process not started: no pipe", metadata: ["errno": "\(errno)"])
            pageSettled.signal()
            return
        }
        stopPipe.withLock { $0 = (pipe.read, pipe.write) }
        let stopRead = pipe.read
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                    ThreadName.start("services") { [self] in
                        supervise(stop: stopRead)
                        finished.resume()
                    }
                }
            } onCancel: { self.requestStop() }
        } onGracefulShutdown: { self.requestStop() }
        stopPipe.withLock { pipe in
            if let (read, write) = pipe {
                close(read)
                close(write)
            }
            pipe = nil
        }
    }

    /// Wakes the supervising thread to stop the child.
    private func requestStop() {
        stopPipe.withLock { pipe in
            guard let (_, write) = pipe else { return }
            var byte: UInt8 = 1
            _ = Glibc.write(write, &byte, 1)
        }
    }

    /// The supervision, on its own thread: start, wait, start again, until the stop pipe is
    /// written.
    private func supervise(stop: Int32) {
        var rules = rules
        state.began()
        if !expectsPage { pageSettled.signal() }
        defer { pageSettled.signal() }
        let pageDeadline = SystemClock.monotonicUptime() + pageTimeout
        var action = rules.begin()
        while case .start(let delay) = action {
            if delay > 0, Self.wait(for: [stop], seconds: delay) != nil {
                action = rules.stop()
                break
            }
            let started = SystemClock.monotonicUptime()
            guard let report = SystemCall.nonBlockingPipe() else {
                logger.error("services process not started: no pipe", metadata: ["errno": "\(errno)"])
                pageSettled.signal()
                action = rules.ended(after: 0)
                continue
            }
            let spawned = spawn(report: report.write)
            close(report.write)
            guard let pid = spawned else {
                close(report.read)
                pageSettled.signal()
                action = rules.ended(after: 0)
                continue
            }
            let stopped = waitForEnd(pid, stop: stop, report: report.read, pageDeadline: pageDeadline)
            close(report.read)
            // A child that ended before its page said anything: the socket waits no longer.
            pageSettled.signal()
            if stopped {
                action = rules.stop()
            } else {
                action = rules.ended(after: SystemClock.monotonicUptime() - started)
                if case .start(let delay) = action {
                    logger.warning("services process ended; starting it again",
                                   metadata: ["pid": "\(pid)", "after": "\(FixedDecimal.text(delay, decimals: 0)) s"])
                }
            }
        }
    }

    /// Starts the child; nil (logged) when it cannot be started.
    private func spawn(report: Int32) -> pid_t? {
        let pid: pid_t
        switch SystemCall.spawn(executable, arguments: arguments + ["--report-fd", "3"], report: report) {
        case .success(let child): pid = child
        case .failure(let error):
            logger.error("services process not started", metadata: ["executable": "\(executable)", "error": "\(error)"])
            return nil
        }
        logger.info("services process started", metadata: ["pid": "\(pid)"])
        state.started(pid: pid)
        return pid
    }

    /// Waits until the child ends (false) or the stop pipe is written (true: the child is then
    /// sent SIGTERM, and SIGKILL after `stopTimeout`); the child is reaped either way.
    private func waitForEnd(_ pid: pid_t, stop: Int32, report: Int32, pageDeadline: Double) -> Bool {
        let pidfd = SystemCall.processDescriptor(pid)
        defer { if pidfd >= 0 { close(pidfd) } }
        var stopped = false
        var reports = ServicesReportReader()
        var reading = true
        var pageWaited = pageSettled.happened
        while true {
            // Without a pidfd (a kernel before 5.3), looked at once a second; until the page has
            // said whether it listens, at its deadline too.
            var limit: Double? = pidfd >= 0 ? nil : 1
            if !pageWaited {
                let left = pageDeadline - SystemClock.monotonicUptime()
                if left <= 0 {
                    pageWaited = true
                    if !pageSettled.happened {
                        logger.warning("web page has not said whether it listens; the control socket answers without it",
                                       metadata: ["after": "\(FixedDecimal.text(pageTimeout, decimals: 0)) s"])
                        pageSettled.signal()
                    }
                } else {
                    limit = min(limit ?? left, left)
                }
            }
            let woken = Self.wait(for: (pidfd >= 0 ? [pidfd, stop] : [stop]) + (reading ? [report] : []), seconds: limit)
            if woken == nil, pidfd >= 0 { continue }
            if woken == stop {
                stopped = true
                break
            }
            if woken == report {
                reading = readReports(report, into: &reports)
                continue
            }
            var status: Int32 = 0
            if woken == pidfd || pidfd < 0 {
                if waitpid(pid, &status, pidfd >= 0 ? 0 : WNOHANG) == pid {
                    logger.warning("services process ended", metadata: ["pid": "\(pid)", "status": "\(Self.describe(status))"])
                    state.ended(Self.describe(status))
                    return false
                }
                if pidfd >= 0 {  // reaped elsewhere: nothing to wait for
                    state.ended("an unknown status")
                    return false
                }
            }
        }
        kill(pid, SIGTERM)
        let deadline = SystemClock.monotonicUptime() + stopTimeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            let left = deadline - SystemClock.monotonicUptime()
            if left <= 0 {
                logger.warning("services process did not stop in time: killed", metadata: ["pid": "\(pid)"])
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            _ = Self.wait(for: pidfd >= 0 ? [pidfd] : [], seconds: pidfd >= 0 ? left : min(left, 0.1))
        }
        state.ended(Self.describe(status))
        return stopped
    }

    /// Reads what the child reported so far and takes its last complete state; false once the
    /// child's end is closed (nothing more to read).
    private func readReports(_ report: Int32, into reader: inout ServicesReportReader) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(report, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { return errno == EAGAIN }
            if n == 0 { return false }
            for report in reader.take(buffer[..<n]) {
                state.reported(report)
                if let info = report.fleet {
                    // A change of the link's state: one line each, so the journal has the link's
                    // history beside the daemon's.
                    logger.info("fleet link state", metadata: ["state": "\(info.state.rawValue)", "broker": "\(info.broker)", "detail": "\(info.detail ?? "")"])
                }
                // The page has said whether it listens (it logs which itself): the socket may answer.
                if report.page != nil { pageSettled.signal() }
            }
            if reader.discarded > 0, !reader.discardLogged {
                reader.discardLogged = true
                logger.warning("services process reported a line that is not a report; ignored", metadata: ["lines": "\(reader.discarded)"])
            }
        }
    }

    /// Polls `fds` for reading for up to `seconds` (nil: no limit); the first readable one, or
    /// nil at the time limit.
    private static func wait(for fds: [Int32], seconds: Double?) -> Int32? {
        var polled = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let timeout = seconds.map { Int32(clamping: Int(saturating: ($0 * 1000).rounded(.up))) } ?? -1
        while true {
            let n = poll(&polled, nfds_t(polled.count), timeout)
            if n < 0, errno == EINTR { continue }
            return polled.first { $0.revents != 0 }?.fd
        }
    }

    /// `exit 3`, `signal 9`.
    static func describe(_ status: Int32) -> String {
        status & 0x7F == 0 ? "exit \((status >> 8) & 0xFF)" : "signal \(status & 0x7F)"
    }
}
