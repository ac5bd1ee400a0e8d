import ArgumentParser
import CEarlySignals
import FoundationEssentials
import Glibc
import Logging
import RecorderConfiguration
import RecorderDaemon
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderSystemd
import ServiceLifecycle

/// `recorderd`: the sensor-recorder daemon.
@main
struct RecorderdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recorderd",
        abstract: "Records sensors for task runs; controlled over a Unix socket (JSON-RPC 2.0).",
        version: RecorderVersion.string)

    @Option(name: .long, help: "Configuration file.")
    var config: String?

    @OptionGroup var options: DaemonOptions

    @Flag(name: .customLong("check-config"),
          help: "Check the configuration (FILE, --config or the default) without starting or probing anything: print it with the defaults filled in, or every problem. Exit 0 or 78.")
    var checkConfig = false

    @Flag(help: "With --check-config: print the effective configuration as JSON.")
    var json = false

    @Argument(help: "With --check-config: the configuration file to check.")
    var file: String?

    func validate() throws {
        if file != nil, !checkConfig { throw ValidationError("a FILE argument goes with --check-config (to run with a file: --config FILE)") }
        if json, !checkConfig { throw ValidationError("--json goes with --check-config") }
        if file != nil, config != nil { throw ValidationError("give the file either as FILE or as --config, not both") }
    }

    func run() async throws {
        if checkConfig {
            let path = file ?? config ?? DaemonConfigurationLoader.defaultPath
            var check = DaemonConfigurationLoader.check(path: path, required: file != nil || config != nil, socket: options.socket,
                                                        dataDirectory: options.dataDir, deviceKinds: RecorderdComposition.components.deviceKinds)
            if let missing = ServicesProgram.missing(for: check.configuration) { check.warnings.append(missing) }
            let (output, errors, status) = check.report(json: json)
            _ = Array(errors.utf8).withUnsafeBytes { POSIXFile.writeAll(2, $0) }
            _ = Array(output.utf8).withUnsafeBytes { POSIXFile.writeAll(1, $0) }
            throw ExitCode(status.rawValue)
        }
        // SIGHUP has been caught since the executable loaded (CEarlySignals): one sent before the
        // reload service listens is noted and carried out when it starts, instead of ending the daemon.
        precondition(recorderd_early_signals_installed() == 1, "the early SIGHUP handler could not be installed")
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        JournalLogHandler.bootstrap(level: level)
        let logger = Logger(label: "recorderd")
        let (path, socket, dataDir) = (config ?? DaemonConfigurationLoader.defaultPath, options.socket, options.dataDir)
        let required = config != nil
        let components = RecorderdComposition.components
        let deviceKinds = components.deviceKinds
        let load = { @Sendable () throws(ConfigurationError) in
            // Unknown keys (typos, most likely) are warned about at every load, with the key meant.
            try DaemonConfigurationLoader.load(path: path, required: required, socket: socket, dataDirectory: dataDir,
                                              deviceKinds: deviceKinds) { warning in
                logger.warning("configuration: \(warning)")
            }
        }
        let loaded = try DaemonOptions.configurationOrExit(logger: logger, load)
        let daemon = RecorderDaemon(configuration: loaded.0, components: components, baseDirectory: loaded.baseDirectory,
                                    listenSocket: SystemdSocketActivation.passedControlSocket(), reloadConfiguration: load,
                                    earlyReload: { recorderd_take_early_sighup() == 1 }, logger: logger)
        // The web page and the fleet link run in a process of their own (recorderd-services,
        // beside this program): the recording process maps no Foundation, ICU or Hummingbird.
        var services: [String]?
        if loaded.0.http != nil || loaded.0.mqtt != nil {
            services = [ServicesProgram.path(), "--config", path, "--socket", loaded.0.socket, "--data-dir", loaded.0.dataDirectory,
                        "--log-level", level.rawValue, "--parent", String(getpid())]
        }
        do {
            try await daemon.run(services: services)
        } catch {
            // One line and a sysexits status: I/O (the data directory, the socket) or internal.
            let status = RecorderDaemon.exitStatus(for: error)
            logger.critical("recorderd stopped", metadata: ["error": "\(error)", "status": "\(status.rawValue)"])
            throw ExitCode(status.rawValue)
        }
    }
}
