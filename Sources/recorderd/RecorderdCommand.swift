import ArgumentParser
import CEarlySignals
import Logging
import RecorderDaemon
import RecorderModel

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

    func run() async throws {
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
            try DaemonConfigurationLoader.load(path: path, required: required, socket: socket, dataDirectory: dataDir)
        }
        let loaded: (DaemonConfiguration, baseDirectory: String)
        do {
            loaded = try load()
        } catch {
            logger.critical("configuration error", metadata: ["error": "\(error.message)"])
            throw ExitCode(78)
        }
        let daemon = RecorderDaemon(configuration: loaded.0, baseDirectory: loaded.baseDirectory,
                                    listenSocket: SystemdSocketActivation.passedControlSocket(), reloadConfiguration: load,
                                    earlyReload: { recorderd_take_early_sighup() == 1 }, logger: logger)
        try await daemon.run()
    }
}
