import ArgumentParser

/// The options `recorderd` and `recorderd-services` share: where the control socket and the data
/// are (over the configuration file's), and what is logged.
public struct DaemonOptions: ParsableArguments {
    @Option(name: .long, help: "Control socket path (overrides the file).")
    public var socket: String?

    @Option(name: .customLong("data-dir"), help: "Data directory (overrides the file).")
    public var dataDir: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    public var logLevel: String = "info"

    public init() {}
}
