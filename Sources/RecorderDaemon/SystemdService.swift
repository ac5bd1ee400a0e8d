import FoundationEssentials
import Glibc
import Logging
import NIOCore
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderSystemd
import ServiceLifecycle

/// Keeps systemd informed while recorderd runs: READY=1 once the control socket listens (the
/// devices are probed before the service group starts), STATUS= when the summary changes, WATCHDOG=1 at
/// half of `WATCHDOG_USEC` while healthy (the control server's event loop answers and no recorder
/// thread is wedged), STOPPING=1 when shutdown begins.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let watchdogTimeout: Double?
    let devices: DeviceRegistry
    let runs: TaskRunRegistry
    /// Returns once the control socket listens (then READY=1).
    let listening: @Sendable () async -> Void
    /// The control server's event loop: it must answer before each ping.
    let eventLoop: any EventLoop
    /// The control server's way onto that loop: once the server has shut the loop down, no ping
    /// asks it (and none is sent: recorderd is stopping).
    let gate: EventLoopGate
    let statusInterval: Double
    let minimumStall: Double
    /// Signalled once READY=1 is sent (reloads wait for it: RELOADING=1 never precedes READY=1).
    let announced: OneShotEvent
    let logger: Logger
    /// Told each watchdog check's outcome (nil: the control loop did not answer), for tests: the
    /// checks are the events a test of what the watchdog withholds waits on.
    var checked: (@Sendable (WatchdogPolicy.Action?) -> Void)? = nil

    func run() async throws {
        await listening()
        var lastStatus = await Self.summary(devices: devices, runs: runs)
        notifier.ready(status: lastStatus)
        announced.signal()
        var policy = WatchdogPolicy(minimumStall: minimumStall)
        let tick = min(statusInterval, (watchdogTimeout ?? .infinity) / 2)
        var nextPing = 0.0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let status = await Self.summary(devices: devices, runs: runs)
            if status != lastStatus {
                notifier.status(status)
                lastStatus = status
            }
            let now = SystemClock.monotonicUptime()
            if watchdogTimeout != nil, now >= nextPing {
                // The main loop answers (a wedged event loop never completes this: no ping).
                if await loopAnswers() {
                    let action = policy.check(stalled: devices.stalledDevices(now: SystemClock.monotonicUptime(), minimum: minimumStall))
                    switch action {
                    case .ping:
                        notifier.watchdog()
                    case .withhold(let reason, let log):
                        if log { logger.critical("watchdog ping withheld", metadata: ["reason": "\(reason)"]) }
                    }
                    checked?(action)
                } else {
                    checked?(nil)
                }
                nextPing = now + tick
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(tick)) }
        }
        notifier.stopping()
        await notifier.flush()
    }

    /// True once the control server's event loop has run an empty task; false at once when the
    /// server has shut it down.
    func loopAnswers() async -> Bool {
        await withCheckedContinuation { (answered: CheckedContinuation<Bool, Never>) in
            if !gate.execute(on: eventLoop, { answered.resume(returning: true) }) { answered.resume(returning: false) }
        }
    }

    /// One line: devices up and runs recording.
    static func summary(devices: DeviceRegistry, runs: TaskRunRegistry) async -> String {
        let infos = devices.infos
        let up = infos.filter { $0.state != .unavailable }.count
        let active = runs.active()
        let recording = active.reduce(0) { $0 + $1.recording.count }
        return "\(up) of \(infos.count) devices up; \(active.count) task runs, \(recording) recorders recording"
    }
}
