import ArgumentParser
import RecorderRuntime
import FoundationEssentials
import Glibc
import Logging
import RecorderConfiguration
import RecorderFleet
import RecorderModel
import RecorderProtocol
import RecorderSystemd
import RecorderWeb
import ServiceLifecycle

/// `recorderd-services`: the web page and the fleet link of a recorderd configuration, as a
/// client of its control socket. recorderd starts it (`ServicesProcess`) when the configuration
/// has `http` or `mqtt`; it is not meant to be started by hand.
@main
struct ServicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recorderd-services",
        abstract: "recorderd's web page and fleet link (started by recorderd).",
        version: RecorderVersion.string)

    @Option(name: .long, help: "Configuration file.")
    var config: String

    @OptionGroup var options: DaemonOptions

    @Option(help: "The process id of the recorderd that started this one: ends when it ends.")
    var parent: Int32?

    @Option(name: .customLong("report-fd"), help: "A descriptor (3 or above) on which to report the page's and the fleet link's state to recorderd.")
    var reportDescriptor: Int32?

    func validate() throws {
        if let reportDescriptor, reportDescriptor < 3 {
            throw ValidationError("--report-fd must be 3 or above (0, 1 and 2 are the standard streams), not \(reportDescriptor)")
        }
    }

    func run() async throws {
        // Ends with the daemon that started it, also when the daemon is killed: by SIGKILL on its
        // death, asked for from a thread that lives as long as this process, and by a watch of its
        // pidfd (`ParentWatch`). Nothing here needs a graceful end once the daemon is gone: the
        // broker publishes the fleet link's Will, and the page has nothing left to show.
        if let parent { ParentWatch.exitWhenEnded(parent) }
        // A reload is the daemon's; http and mqtt take effect on restart.
        signal(SIGHUP, SIG_IGN)
        JournalLogHandler.bootstrap(level: Logger.Level(rawValue: options.logLevel) ?? .info)
        let logger = Logger(label: "recorderd-services")
        // This process opens no device: the entries are recorderd's to check (.unchecked).
        let loaded = try DaemonOptions.configurationOrExit(logger: logger) { [config, options] () throws(ConfigurationError) in
            try DaemonConfigurationLoader.load(path: config, required: true, socket: options.socket, dataDirectory: options.dataDir,
                                               deviceKinds: .unchecked) { _ in }
        }
        let configuration = loaded.0
        let reports = reportDescriptor.flatMap(ServicesReportPipe.init(descriptor:))
        let web = configuration.http.map {
            WebServer(configuration: $0, socketPath: configuration.socket, dataDirectory: configuration.dataDirectory,
                      baseDirectory: loaded.baseDirectory, connectionLimit: configuration.limits.connections,
                      report: { reports?.send(ServicesReport(page: $0)) }, logger: logger)
        }
        let fleet = configuration.mqtt.map {
            FleetAgent(configuration: $0, socketPath: configuration.socket, dataDirectory: configuration.dataDirectory,
                       baseDirectory: loaded.baseDirectory, report: { reports?.send(ServicesReport(fleet: $0)) }, logger: logger)
        }
        let services: [any Service] = [web as (any Service)?, fleet].compactMap { $0 }
        guard !services.isEmpty else { return }
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) },
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
