import ArgumentParser
import RecorderProtocol

/// The arguments of a command about one run (`show`, `rm`, `export`, `plot`): the run as
/// `RunReference` reads it, the control socket, and `--json`.
struct RunArguments: ParsableArguments {
    @OptionGroup var socket: SocketOptions
    @Argument(help: "A task-run UUID, a unique prefix of one, or a run directory.") var run: String
    @Flag(help: "Print JSON.") var json = false

    /// The run's summary and manifest.
    func details() async throws -> RunDetails {
        try await RunReference.details(run, socket: socket)
    }
}
