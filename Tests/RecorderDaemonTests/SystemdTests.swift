import Foundation
import Logging
import NIOPosix
@testable import RecorderDaemon
import RecorderClient
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Synchronization
import Testing
import RecorderConfiguration
import RecorderRuntime
import RecorderSystemd

/// recorderd as a systemd service: the units checked by systemd's own tools, socket activation by
/// `systemd-socket-activate`, and sd_notify messages caught on a datagram socket the test binds.
@Suite("systemd integration", .serialized)
struct SystemdTests {
    static let unitDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../systemd").standardized.path

    /// Runs a command to its end; returns status and everything it printed.
    static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) async throws -> (Int32, String) {
        let p = try await ChildProcess(executable, arguments)
        let status = try await p.wait(timeout: 60)
        return (status, p.printed)
    }

    @Test(.ownThread) func unitsVerifyWithoutAnyOutput() async throws {
        // systemd-analyze verify exits 0 even on typos: any output fails. ExecStart points at the
        // built binary (the installed path does not exist here).
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for unit in ["recorderd.service", "recorderd.socket"] {
            let text = try String(contentsOfFile: Self.unitDirectory + "/" + unit, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/recorderd", with: ChildProcess.executable("recorderd"))
            try text.write(toFile: dir + "/" + unit, atomically: true, encoding: .utf8)
        }
        let (status, output) = try await Self.run("/usr/bin/systemd-analyze", ["verify", dir + "/recorderd.service", dir + "/recorderd.socket"])
        #expect(status == 0)
        #expect(output.isEmpty, "systemd-analyze verify printed:\n\(output)")
    }

    @Test(.ownThread) func serviceExposureIsAtMostTwo() async throws {
        let (status, output) = try await Self.run("/usr/bin/systemd-analyze",
                                                  ["security", "--offline=true", "--threshold=20", Self.unitDirectory + "/recorderd.service"])
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 2.0, "\(line)")
        #expect(status == 0, "the --threshold=20 check failed: \(line)")
    }

    /// The unit's open-file limit fits the default limits with 32 devices, twice over.
    @Test func theUnitsOpenFileLimitFitsTheLimits() throws {
        let unit = try String(contentsOfFile: Self.unitDirectory + "/recorderd.service", encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("LimitNOFILE=") })
        let limit = try #require(Int(line.dropFirst("LimitNOFILE=".count)))
        #expect(limit >= 2 * DaemonLimits().descriptorsNeeded(devices: 32), "LimitNOFILE=\(limit)")
        #expect(limit >= 2 * DaemonLimits.servicesDescriptorsNeeded, "LimitNOFILE=\(limit) (recorderd-services inherits it)")
    }

    /// The configuration file of a test in `dir`: the socket in it is not used (activation passes
    /// one, or the command line names another).
    func configuration(in dir: String) throws -> String {
        var configuration = try TestConfiguration(directory: dir)
        configuration.daemon.socket = dir + "/unused.sock"
        configuration.daemon.retryInterval = 0.2
        return try configuration.write()
    }

    @Test(.ownThread) func socketActivationServesClientsOnThePassedSocket() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = dir + "/activated.sock"
        let activator = try await ChildProcess("/usr/bin/systemd-socket-activate",
                                         ["-l", socket, ChildProcess.executable("recorderd"), "--config", try configuration(in: dir)])
        // systemd-socket-activate listens first (it says so) and execs recorderd (same PID) on the
        // first connection.
        try #require(try await activator.printed(where: { $0.contains("Listening on") }, timeout: 20) != nil, "\(activator.printedSoFar())")
        let connected = try await RecorderClient.connect(socketPath: socket)
        let status = try await connected.status()
        #expect(status.pid == activator.pid)
        #expect(status.devices.first?.name == "imu0")
        #expect(!FileManager.default.fileExists(atPath: dir + "/unused.sock"), "the configured socket must not be bound")
        connected.close()
        #expect(try await activator.stop(signal: SIGTERM, timeout: 15) == 0)
    }

    @Test(.ownThread) func notifySocketGetsReadyWatchdogAndStopping() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notify = try NotifySocket(path: dir + "/notify.sock")
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", try configuration(in: dir), "--socket", dir + "/control.sock"],
                                      environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        let ready = try #require(try await notify.next(timeout: 20), "no READY=1")
        #expect(ready.hasPrefix("READY=1\nSTATUS="), "\(ready)")
        #expect(ready.contains("1 of 1 devices up"), "\(ready)")
        // By READY=1 the socket listens.
        let client = try await RecorderClient.connect(socketPath: dir + "/control.sock")
        client.close()
        var pings = 0
        while pings < 3, let message = try await notify.next(timeout: 5) {
            if message == "WATCHDOG=1" { pings += 1 }
        }
        #expect(pings == 3, "WATCHDOG=1 every 0.2 s (half of WATCHDOG_USEC)")
        kill(daemon.pid, SIGTERM)
        // Read on until STOPPING=1, or until recorderd has exited and nothing is left to read (a
        // loaded machine has taken over 10 s to get there: how long is not the question).
        var stopping = false
        let deadline = Deadline(seconds: 60)
        while !stopping, !deadline.hasPassed {
            if let message = try await notify.next(timeout: 0.5) {
                stopping = message.hasPrefix("STOPPING=1")
            } else if !daemon.isRunning {
                break
            }
        }
        #expect(stopping)
        #expect(try await daemon.wait(timeout: 15) == 0)
    }

    /// SIGHUP: an added device appears, a removed one goes, a broken file changes nothing, and a
    /// recording on the unchanged device goes on untouched (checked sample for sample).
    @Test(.ownThread) func sighupReloadsDevicesWithoutTouchingARunningRecording() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notify = try NotifySocket(path: dir + "/notify.sock")
        let imu0 = Fixtures.replayDevice(name: "imu0", file: Fixtures.shortWalk)
        let imu1 = Fixtures.replayDevice(name: "imu1", file: Fixtures.longWalk)
        func write(_ devices: [DeviceConfiguration]) throws {
            var configuration = try TestConfiguration(directory: dir, devices: devices)
            configuration.daemon.retryInterval = 0.2
            try configuration.write()
        }
        func reload() async throws {
            kill(daemon.pid, SIGHUP)
            var reloading = false, ready = false
            while !ready, let m = try await notify.next(timeout: 10) {
                if m.hasPrefix("RELOADING=1") { reloading = true }
                if reloading, m.hasPrefix("READY=1") { ready = true }
            }
            #expect(reloading && ready, "RELOADING=1 then READY=1")
        }
        try write([imu0])
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", dir + "/recorderd.json", "--socket", dir + "/control.sock"],
                                      environment: ["NOTIFY_SOCKET": notify.path])
        #expect(try await notify.next(timeout: 20)?.hasPrefix("READY=1") == true)
        let client = try await RecorderClient.connect(socketPath: dir + "/control.sock")
        let run = try await client.startTask(identifier: "reload", asyncActions: [.motion("motion", device: "imu0")])
        try await awaitRecords(client, device: "imu0", count: 50)

        try write([imu0, imu1])
        try await reload()
        let afterAdd = try await client.devices()
        #expect(afterAdd.map(\.name) == ["imu0", "imu1"])
        // The same imu0 (not a new one): still sampling for the recording.
        #expect(afterAdd.first?.state == .sampling && (afterAdd.first?.users ?? 0) >= 1, "\(String(describing: afterAdd.first))")
        try await awaitRecords(client, device: "imu1", count: 20)

        try write([imu0])
        try await reload()
        #expect(try await client.devices().map(\.name) == ["imu0"])

        try "{ not json".write(toFile: dir + "/recorderd.json", atomically: true, encoding: .utf8)
        try await reload()
        #expect(try await client.devices().map(\.name) == ["imu0"], "a broken file keeps the running configuration")

        try await awaitRecords(client, device: "imu0", count: 50)
        let result = try await run.finish()
        let records = try Fixtures.records(run.runDirectory + "/motion.jsonl")
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.isEmpty, "\(outcome.mismatches.prefix(5))")
        #expect(outcome.dropped == 0)
        #expect(outcome.samples >= 100)
        #expect(!records.contains { $0.event == "error" })
        #expect(result.asyncResults.compactMap(\.file).first?.gapCount == 0)
        client.close()
        #expect(try await daemon.stop(signal: SIGTERM, timeout: 15) == 0)
    }

    /// A recorder thread that stops showing life stops the watchdog pings (in-process, with a
    /// stub sensor backend of our own and the notifier's transport captured).
    @Test(.ownThread) func aWedgedRecorderThreadStopsTheWatchdogPings() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var configuration = DaemonConfiguration()
        configuration.dataDirectory = dir
        configuration.devices = [DeviceConfiguration(name: "stub0", kind: "stub", json: .object(["name": .string("stub0"), "kind": .string("stub")]))]
        let source = StubSource()
        let devices = DeviceRegistry(configuration: configuration, backends: [StubBackend(source: source)], baseDirectory: dir, logger: Fixtures.logger)
        let runs = TaskRunRegistry(dataDirectory: dir, devices: devices, ringSeconds: 2, clock: SystemClock(), logger: Fixtures.logger)
        let lease = try devices.device(named: "stub0").acquire()
        defer { lease.release() }
        let messages = LockedValue<[(Double, String)]>([])
        let notifier = SystemdNotifier { m in messages.withLock { $0.append((SystemClock.monotonicUptime(), m)) } }
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let checks = WatchdogChecks()
        let service = SystemdService(notifier: notifier, watchdogTimeout: 0.2, devices: devices, runs: runs, listening: {},
                                     eventLoop: loop.next(), gate: EventLoopGate(), statusInterval: 0.1, minimumStall: 0.5, announced: OneShotEvent(),
                                     logger: Fixtures.logger, checked: checks.record)
        let task = Task { try await service.run() }
        // Healthy: three checks in a row ping (each check is the event waited on: the suite runs
        // alongside others on a loaded machine).
        try await checks.wait(timeout: 30) { $0.suffix(3) == [.ping, .ping, .ping] }
        #expect(messages.withLock { $0.first?.1.hasPrefix("READY=1") } == true)
        source.wedge()
        // Past the stall limit (0.5 s), every check withholds its ping: three in a row, and no
        // ping from the first withheld one on.
        let wedged = checks.count
        let seen = try await checks.wait(timeout: 30) { Array($0.dropFirst(wedged)).isWedgedThrice }
        let sinceWithheld = seen.dropFirst(wedged).drop { $0 == .ping }
        #expect(!sinceWithheld.contains(.ping), "a ping after the watchdog withheld one: \(sinceWithheld)")
        #expect(devices.stalledDevices(now: SystemClock.monotonicUptime(), minimum: 0.5).map(\.name) == ["stub0"])
        task.cancel()
        _ = try? await task.value
        source.unwedge()
        try await loop.shutdownGracefully()
    }
}

extension SystemdTests {
    /// The control server closes its gate and shuts its loop down before the service group has
    /// stopped this service (an embedder's `shutdown()`): the watchdog check must not hand work to
    /// the dead loop (strict mode would trap), and it sends no ping.
    @Test(.ownThread) func noWatchdogCheckAsksALoopThatHasShutDown() async throws {
        try #require(NIOStrictMode.isOn, "SWIFTNIO_STRICT=1 from before main (CTestEnvironment)")
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var configuration = DaemonConfiguration()
        configuration.dataDirectory = dir
        let devices = DeviceRegistry(configuration: configuration, backends: [], baseDirectory: dir, logger: Fixtures.logger)
        let runs = TaskRunRegistry(dataDirectory: dir, devices: devices, ringSeconds: 2, clock: SystemClock(), logger: Fixtures.logger)
        let messages = LockedValue<[(Double, String)]>([])
        let notifier = SystemdNotifier { m in messages.withLock { $0.append((SystemClock.monotonicUptime(), m)) } }
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let gate = EventLoopGate()
        let checks = WatchdogChecks()
        let service = SystemdService(notifier: notifier, watchdogTimeout: 0.2, devices: devices, runs: runs, listening: {},
                                     eventLoop: loop.next(), gate: gate, statusInterval: 0.1, minimumStall: 0.5, announced: OneShotEvent(),
                                     logger: Fixtures.logger, checked: checks.record)
        let task = Task { try await service.run() }
        try await checks.wait(timeout: 30) { $0.suffix(2) == [.ping, .ping] }
        #expect(messages.withLock { $0.filter { $0.1 == "WATCHDOG=1" }.count } >= 2, "a ping every 0.1 s while the loop answers")
        #expect(await service.loopAnswers())
        gate.close()
        try await loop.shutdownGracefully()
        let pingsBefore = messages.withLock { $0.filter { $0.1 == "WATCHDOG=1" }.count }
        #expect(await !service.loopAnswers())
        // Three checks with the loop gone: none pings, and none traps.
        let closed = checks.count
        try await checks.wait(timeout: 30) { Array($0.dropFirst(closed)).suffix(3) == [nil, nil, nil] }
        #expect(messages.withLock { $0.filter { $0.1 == "WATCHDOG=1" }.count } == pingsBefore, "a ping without a loop to answer")
        task.cancel()
        _ = try? await task.value
    }
}

/// A sensor source of our own whose thread can be wedged on purpose.
final class StubSource: SensorSource, @unchecked Sendable {
    // @unchecked: the semaphores and atomics below are the only shared state.
    let gate = DispatchSemaphore(value: 0)
    let wedged = Atomic<Bool>(false)
    let stopped = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)

    func open() throws -> DeviceCapabilities { DeviceCapabilities(sensorTypes: [.accelerometer], rate: 10) }

    var longestBlock: Double { 0.1 }

    func start(sink: any FrameSink) throws {
        stopped.store(false, ordering: .releasing)
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                if wedged.load(ordering: .acquiring) { gate.wait() }
                sink.heartbeat()
                Thread.sleep(forTimeInterval: 0.05)
            }
            done.signal()
        }
        thread.start()
    }

    func wedge() { wedged.store(true, ordering: .releasing) }

    func unwedge() {
        wedged.store(false, ordering: .releasing)
        gate.signal()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        unwedge()
        done.wait()
    }
}

struct StubBackend: SensorBackend {
    let source: StubSource
    var kind: String { "stub" }
    var configurationKeys: [String] { ["name"] }
    var servedActionTypes: Set<AsyncActionType> { [.motion] }
    func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource { source }
}

/// The watchdog decision alone.
struct WatchdogPolicyTests {
    @Test func pingsWhileHealthyAndLogsAWedgeOnce() {
        var policy = WatchdogPolicy(minimumStall: 5)
        #expect(policy.check(stalled: []) == .ping)
        let wedged = [(name: "imu0", silentSeconds: 7.2)]
        #expect(policy.check(stalled: wedged) == .withhold(reason: "recorder thread wedged: imu0 silent 7 s", log: true))
        #expect(policy.check(stalled: [(name: "imu0", silentSeconds: 9.0)]) == .withhold(reason: "recorder thread wedged: imu0 silent 9 s", log: false))
        #expect(policy.check(stalled: []) == .ping)
        #expect(policy.check(stalled: wedged) == .withhold(reason: "recorder thread wedged: imu0 silent 7 s", log: true), "a new wedge is logged again")
    }
}

/// The watchdog's checks as `SystemdService` reports them (nil: the control loop did not answer),
/// for tests to wait on: a waiter is resumed by the check that makes its predicate hold.
final class WatchdogChecks: Sendable {
    typealias Checks = [WatchdogPolicy.Action?]
    private struct Waiter {
        let predicate: @Sendable (Checks) -> Bool
        let continuation: CheckedContinuation<Checks?, Never>
    }
    private struct State {
        var seen: Checks = []
        var waiters: [Int: Waiter] = [:]
        var next = 0
    }
    private let state = LockedValue(State())

    var count: Int { state.withLock { $0.seen.count } }

    var record: @Sendable (WatchdogPolicy.Action?) -> Void {
        { [state] action in
            let ready = state.withLock { s -> [(CheckedContinuation<Checks?, Never>, Checks)] in
                s.seen.append(action)
                let met = s.waiters.filter { $0.value.predicate(s.seen) }
                for key in met.keys { s.waiters[key] = nil }
                return met.values.map { ($0.continuation, s.seen) }
            }
            for (continuation, seen) in ready { continuation.resume(returning: seen) }
        }
    }

    /// Waits until the checks seen so far satisfy `predicate` and returns them; throws after
    /// `timeout` seconds.
    @discardableResult
    func wait(timeout: Double, _ predicate: @escaping @Sendable (Checks) -> Bool) async throws -> Checks {
        let state = self.state
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Checks?, Never>) in
            let key = state.withLock { s -> Int? in
                if predicate(s.seen) {
                    continuation.resume(returning: s.seen)
                    return nil
                }
                defer { s.next += 1 }
                s.waiters[s.next] = Waiter(predicate: predicate, continuation: continuation)
                return s.next
            }
            guard let key else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                state.withLock { $0.waiters.removeValue(forKey: key) }?.continuation.resume(returning: nil)
            }
        }
        guard let result else { throw TestDaemonError(description: "the watchdog's checks never matched: \(state.withLock { $0.seen })") }
        return result
    }
}

extension Array where Element == WatchdogPolicy.Action? {
    /// Three withheld pings in a row at the end.
    var isWedgedThrice: Bool {
        suffix(3).count == 3 && suffix(3).allSatisfy { if case .withhold? = $0 { true } else { false } }
    }
}
