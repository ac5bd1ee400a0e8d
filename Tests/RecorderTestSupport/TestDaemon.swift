import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderDaemon
import Testing

/// recorderd under test: one harness, two modes, as Hummingbird's testing has `.router` and
/// `.live`. Either way the daemon has a `TestConfiguration` and the test talks to its control
/// socket.
/// - `inProcess`: the daemon's types in the test process, on a real socket (fast; its registries
///   can be looked into). Ready once `prepare` returns: the socket is listening.
/// - `executable`: the built `recorderd` as a child process (under a wrapper if given: a
///   namespace, `prlimit`). Ready when it sends READY=1 to the test's notify socket, as systemd
///   learns it (an event, no polling); stopped by its PID.
public final class TestDaemon: Sendable {
    public enum Mode: Sendable {
        case inProcess
        /// `wrap`: the command line that runs recorderd's (default: recorderd's own);
        /// `environment`: variables added to the test's.
        case executable(logLevel: String = "error", environment: [String: String] = [:],
                        wrap: @Sendable ([String]) -> [String] = { $0 })
    }

    public let configuration: TestConfiguration
    private let embedded: RecorderDaemon?
    /// The executable's process (nil in process).
    public let process: ChildProcess?
    private let notify: NotifySocket?

    private init(configuration: TestConfiguration, embedded: RecorderDaemon?, process: ChildProcess?, notify: NotifySocket?) {
        self.configuration = configuration
        self.embedded = embedded
        self.process = process
        self.notify = notify
    }

    /// Starts recorderd with `configuration` (the executable: written to its file first, unless
    /// `writing` is false and the test wrote the file itself) and returns once it is ready; throws
    /// if it is not within `timeout` seconds.
    public static func start(_ mode: Mode = .inProcess, _ configuration: TestConfiguration, writing: Bool = true,
                             timeout: Double = 60) async throws -> TestDaemon {
        switch mode {
        case .inProcess:
            try #require(NIOStrictMode.isOn, "SWIFTNIO_STRICT=1 from before main (CTestEnvironment)")
            let daemon = RecorderDaemon(configuration: configuration.daemon, components: .recorderd,
                                        baseDirectory: configuration.directory, logger: Fixtures.logger)
            // Its connections are served on a thread of their own: the suite's synchronous tests
            // fill the cooperative pool's threads (two on the CI machine) for seconds, and clients
            // waiting 10 s for a line timed out behind them in a CI run.
            try await daemon.prepare(servingOn: DedicatedExecutor(label: "test.recorderd.connections"))
            return TestDaemon(configuration: configuration, embedded: daemon, process: nil, notify: nil)
        case .executable(let logLevel, let environment, let wrap):
            if writing { try configuration.write() }
            let notify = try NotifySocket(path: configuration.directory + "/notify-\(UUID().uuidString.prefix(8)).sock")
            let command = wrap([ChildProcess.executable("recorderd"), "--config", configuration.file, "--log-level", logLevel])
            let process = try await ChildProcess(command[0], Array(command.dropFirst()),
                                                 environment: environment.merging(["NOTIFY_SOCKET": notify.path]) { $1 })
            let daemon = TestDaemon(configuration: configuration, embedded: nil, process: process, notify: notify)
            try await daemon.waitUntilReady(timeout: timeout)
            return daemon
        }
    }

    /// In process, with one replayed walk (`imu0`) plus `extraDevices`, as most control-socket tests want it.
    public static func inProcess(speed: Double = 1, orphanTimeout: Double = 600, extraDevices: [DeviceConfiguration] = [],
                                 limits: DaemonLimits = DaemonLimits(), ringSeconds: Double? = nil, loop: Bool = true,
                                 directory: String? = nil) async throws -> TestDaemon {
        var configuration = try TestConfiguration(directory: directory, speed: speed, loop: loop)
        configuration.daemon.devices += extraDevices
        configuration.daemon.orphanTimeout = orphanTimeout
        configuration.daemon.limits = limits
        if let ringSeconds { configuration.daemon.ringSeconds = ringSeconds }
        return try await start(.inProcess, configuration)
    }

    /// The executable, with one replayed walk (`imu0`) at `speed`.
    public static func executable(speed: Double = 1, directory: String? = nil, _ mode: Mode = .executable(),
                                  _ configure: (inout TestConfiguration) throws -> Void = { _ in }) async throws -> TestDaemon {
        var configuration = try TestConfiguration(directory: directory, speed: speed)
        try configure(&configuration)
        return try await start(mode, configuration)
    }

    public var directory: String { configuration.directory }
    public var socket: String { configuration.socket }
    public var dataDirectory: String { configuration.dataDirectory }

    /// The in-process daemon.
    public var daemon: RecorderDaemon {
        guard let embedded else { preconditionFailure("TestDaemon.daemon: recorderd runs as an executable here") }
        return embedded
    }

    /// The executable's process id.
    public var pid: Int32 {
        guard let process else { preconditionFailure("TestDaemon.pid: recorderd runs in process here") }
        return process.pid
    }

    public func client() async throws -> RecorderClient {
        try await RecorderClient.connect(socketPath: socket)
    }

    /// Waits for the executable's READY=1 (again after a reload: the notify socket keeps what it got).
    public func waitUntilReady(timeout: Double) async throws {
        guard let notify, let process else { return }
        let deadline = Deadline(seconds: timeout)
        while !deadline.hasPassed {
            guard let message = try await notify.next(timeout: max(0.1, deadline.remaining)) else { break }
            if message.contains("READY=1") { return }
        }
        _ = try? await process.stop(signal: SIGKILL, timeout: 5)
        throw TestDaemonError(description: "recorderd was not ready within \(timeout) s: \(process.printed)")
    }

    /// Stops it: in process, as SIGTERM would (exit status 0); the executable, by `signal` to its
    /// PID, waiting at most `timeout` seconds; returns the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 20) async throws -> Int32 {
        if let embedded {
            await embedded.shutdown()
            return 0
        }
        return try await process!.stop(signal: signal, timeout: timeout)
    }
}

public struct TestDaemonError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// A suite's harness around one recorderd executable (the web page's, the fleet's): its process
/// and paths come from its `TestDaemon`.
public protocol RecorderdHarness {
    var recorderd: TestDaemon { get }
}

extension RecorderdHarness {
    public var daemon: ChildProcess { recorderd.process! }
    public var directory: String { recorderd.directory }
    public var socket: String { recorderd.socket }
    public var dataDirectory: String { recorderd.dataDirectory }
}
