import FoundationEssentials
import Glibc
import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderSystemd
import ServiceLifecycle
import UnixSignals

/// recorderd assembled: device registry, task-run registry, control server and supervisor,
/// run as a service group that shuts down gracefully on SIGTERM/SIGINT.
public struct RecorderDaemon: Sendable {
    public let configuration: DaemonConfiguration
    public let devices: DeviceRegistry
    public let runs: TaskRunRegistry
    public let server: ControlServer
    /// The descriptors clients' connections and task runs may hold, sized from the open-file limit.
    let descriptors = DescriptorBudget()
    /// The services process's state, for `daemon.status`.
    let servicesStatus = ServicesProcessStatus()
    /// Embedding (`prepare`/`shutdown`, no service group): the task that serves the connections,
    /// started by `prepare` and awaited by `shutdown`.
    private let embeddedServing = LockedValue<Task<Void, Never>?>(nil)
    let supervisor: SupervisorService
    let notifier: SystemdNotifier
    /// Reads the configuration again on SIGHUP; nil: SIGHUP is not handled.
    let reloadConfiguration: (@Sendable () throws(ConfigurationError) -> (DaemonConfiguration, baseDirectory: String))?
    /// Whether a SIGHUP arrived before the reload service took the signal over (then it reloads).
    let earlyReload: @Sendable () -> Bool
    let logger: Logger

    /// Builds the daemon of `components` (the backends, stages and analyses the executable chose).
    /// `baseDirectory` resolves relative device files (the configuration's folder).
    /// `listenSocket`: an already listening control socket (systemd socket activation);
    /// `notifier`: where READY/STATUS/WATCHDOG/STOPPING go (libsystemd's sd_notify by default);
    /// `reloadConfiguration`: how SIGHUP reads the configuration again.
    public init(configuration: DaemonConfiguration, components: DaemonComponents, baseDirectory: String, clock: any RecorderClock = SystemClock(),
                listenSocket: Int32? = nil, notifier: SystemdNotifier = .system,
                reloadConfiguration: (@Sendable () throws(ConfigurationError) -> (DaemonConfiguration, baseDirectory: String))? = nil,
                earlyReload: @escaping @Sendable () -> Bool = { false }, logger: Logger) {
        self.configuration = configuration
        self.notifier = notifier
        self.reloadConfiguration = reloadConfiguration
        self.earlyReload = earlyReload
        self.logger = logger
        devices = DeviceRegistry(configuration: configuration, backends: components.backends(configuration.retryInterval, logger),
                                 stageProviders: components.stageProviders, analysisProviders: components.analysisProviders,
                                 baseDirectory: baseDirectory, logger: logger)
        let clockSynchronisation = configuration.clock.source == .none ? nil : components.clockSynchronisation(configuration.clock, logger)
        runs = TaskRunRegistry(dataDirectory: configuration.dataDirectory, devices: devices, ringSeconds: configuration.ringSeconds,
                               limits: configuration.limits, descriptors: descriptors, clock: clock, clockSynchronisation: clockSynchronisation,
                               logger: logger)
        // The first answer is asked for now, in the background: status has one soon.
        _ = clockSynchronisation?.recent()
        let router = RequestRouter(runs: runs, devices: devices, startUptime: clock.uptime(), clock: clock, services: servicesStatus,
                                   clockSynchronisation: clockSynchronisation)
        server = ControlServer(socketPath: configuration.socket, socketMode: configuration.socketMode, listenSocket: listenSocket,
                               maximumConnections: configuration.limits.connections,
                               lineTimeout: configuration.limits.lineTimeout, descriptors: descriptors, router: router, logger: logger)
        supervisor = SupervisorService(devices: devices, runs: runs, retryInterval: configuration.retryInterval,
                                       orphanTimeout: configuration.orphanTimeout, logger: logger)
    }

    /// Recovers interrupted runs, probes devices, binds the socket and serves it until
    /// `shutdown()`, for embedding (tests, benchmarks, the fuzzer); `run` serves in a service group.
    /// `executor`: where the connections' tasks prefer to run. An embedding process whose
    /// cooperative pool is busy with work of its own (a test suite's synchronous tests compute on
    /// its threads for seconds) gives the daemon an executor of its own, as `recorderd`'s process,
    /// which runs nothing else, needs not.
    public func prepare(servingOn executor: (any TaskExecutor)? = nil) async throws {
        try await recoverAndProbe()
        try await server.bind()
        // The one task of the embedding path: its caller has no scope that outlives the serving
        // (a test harness's start and stop), and `shutdown` awaits it. The connections' child
        // tasks inherit its executor preference.
        let serving = Task(executorPreference: executor) { [server] in await server.serveConnections() }
        embeddedServing.withLock { $0 = serving }
    }

    /// Recovers interrupted runs and probes the devices (nothing is recording yet).
    func recoverAndProbe() async throws {
        // The web page's descriptors are recorderd-services' own, not this budget's.
        let deviceCount = configuration.devices.count
        let openFileLimit = OpenFileLimit.ensure(configuration.limits.descriptorsNeeded(devices: deviceCount), logger: logger)
        descriptors.setOpenFileLimit(openFileLimit, devices: deviceCount)
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        RunRecovery.recover(dataDirectory: configuration.dataDirectory, logger: logger)
        let available = await SupervisorService.onBlockingQueue { [devices] in devices.probeAll() }
        logger.info("devices probed", metadata: ["available": "\(available)", "configured": "\(configuration.devices.count)"])
    }

    /// Serves until SIGTERM or SIGINT (or `handleSignals: false` and task cancellation). The socket
    /// is bound inside the service group, whose signal handling is then in place; systemd gets
    /// READY=1 once it listens and the devices are probed. `services`: the program (path first) that runs
    /// the web page and the fleet link in a process of their own (`ServicesProcess`), started
    /// first: the socket is bound once the page listens (or has said why it cannot).
    public func run(handleSignals: Bool = true, services command: [String]? = nil) async throws {
        try await recoverAndProbe()
        let ready = OneShotEvent()
        let systemd = SystemdService(notifier: notifier, watchdogTimeout: SystemdNotifier.watchdogTimeout(), devices: devices, runs: runs,
                                     listening: { [server] in await server.waitUntilListening() }, eventLoop: server.group.next(), gate: server.gate,
                                     statusInterval: max(0.2, configuration.retryInterval),
                                     minimumStall: configuration.stallTimeout, announced: ready, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: supervisor)]
        if let command, let executable = command.first {
            // The page first: the control socket answers (and READY=1 follows) once it has said
            // that it listens or why it cannot, so a client that has an answer finds the page too.
            let process = ServicesProcess(executable: executable, arguments: command, expectsPage: configuration.http != nil,
                                          state: servicesStatus, logger: logger)
            services.append(.init(service: process))
            services.append(.init(service: ServiceAfter(process.pageSettled, server)))
        } else {
            services.append(.init(service: server))
        }
        services.append(.init(service: systemd))
        if handleSignals, let reloadConfiguration {
            services.append(.init(service: ReloadService(load: reloadConfiguration, running: configuration, devices: devices, runs: runs,
                                                         notifier: notifier, earlyReload: earlyReload,
                                                         ready: { await ready.wait() }, logger: logger)))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                logger: logger))
        try await group.run()
    }
}

extension RecorderDaemon {
    /// Stops serving and closes every run as `interrupted` (what SIGTERM does), for embedding.
    public func shutdown() async {
        await server.close()
        let serving: Task<Void, Never>? = embeddedServing.withLock { s in
            defer { s = nil }
            return s
        }
        await serving?.value
        await runs.interruptAll()
    }
}
