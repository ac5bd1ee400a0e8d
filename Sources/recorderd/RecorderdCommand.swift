import ArgumentParser
import Foundation
import CEarlySignals
import Logging
import RecorderDaemon
import RecorderModel
import RecorderFleet
import RecorderWeb
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

    @Option(name: .long, help: "Control socket path (overrides the file).")
    var socket: String?

    @Option(name: .customLong("data-dir"), help: "Data directory (overrides the file).")
    var dataDir: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

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
            let check = DaemonConfigurationLoader.check(path: path, required: file != nil || config != nil, socket: socket, dataDirectory: dataDir)
            let (output, errors, status) = check.report(json: json)
            FileHandle.standardError.write(Data(errors.utf8))
            FileHandle.standardOutput.write(Data(output.utf8))
            throw ExitCode(status.rawValue)
        }
        // SIGHUP has been caught since the executable loaded (CEarlySignals): one sent before the
        // reload service listens is noted and carried out when it starts, instead of ending the daemon.
        precondition(recorderd_early_signals_installed() == 1, "the early SIGHUP handler could not be installed")
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let journal = JournalLogHandler.stderrIsJournal()
        LoggingSystem.bootstrap { label in
            if journal { return JournalLogHandler(logLevel: level) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "recorderd")
        let (path, socket, dataDir) = (config ?? DaemonConfigurationLoader.defaultPath, self.socket, self.dataDir)
        let required = config != nil
        let load = { @Sendable () throws(ConfigurationError) in
            // Unknown keys (typos, most likely) are warned about at every load, with the key meant.
            try DaemonConfigurationLoader.load(path: path, required: required, socket: socket, dataDirectory: dataDir) { warning in
                logger.warning("configuration: \(warning)")
            }
        }
        let loaded: (DaemonConfiguration, baseDirectory: String)
        do {
            loaded = try load()
        } catch {
            logger.critical("configuration error", metadata: ["error": "\(error.message)"])
            throw ExitCode(ExitStatus.configuration.rawValue)
        }
        let daemon = RecorderDaemon(configuration: loaded.0, baseDirectory: loaded.baseDirectory,
                                    listenSocket: SystemdSocketActivation.passedControlSocket(), reloadConfiguration: load,
                                    earlyReload: { recorderd_take_early_sighup() == 1 }, logger: logger)
        let web = loaded.0.http.map {
            WebServer(configuration: $0, socketPath: loaded.0.socket, dataDirectory: loaded.0.dataDirectory, baseDirectory: loaded.baseDirectory,
                      connectionLimit: loaded.0.limits.connections, logger: logger)
        }
        let fleet = loaded.0.mqtt.map {
            FleetAgent(configuration: $0, socketPath: loaded.0.socket, dataDirectory: loaded.0.dataDirectory, baseDirectory: loaded.baseDirectory,
                       logger: logger)
        }
        do {
            try await daemon.run(additionalServices: [web as (any Service)?, fleet].compactMap { $0 })
        } catch {
            // One line and a sysexits status: I/O (the data directory, the socket) or internal.
            let status = RecorderDaemon.exitStatus(for: error)
            logger.critical("recorderd stopped", metadata: ["error": "\(error)", "status": "\(status.rawValue)"])
            throw ExitCode(status.rawValue)
        }
    }
}
