import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// `recorderctl`: talk to recorderd.
@main
struct RecorderctlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recorderctl",
        abstract: "Control recorderd: status, devices, live tail, task runs, demo.",
        version: RecorderVersion.string,
        subcommands: [StatusCommand.self, DevicesCommand.self, TailCommand.self, RunCommand.self,
                      StartCommand.self, StepCommand.self, FinishCommand.self, CancelCommand.self, RunsCommand.self, ExportCommand.self, PlotCommand.self,
                      ShowCommand.self, RemoveCommand.self, DemoCommand.self, FleetCommand.self, CollectCommand.self,
                      BLECommand.self])

    /// Parses and runs the command: a command-line mistake prints the usage and exits 64; a
    /// runtime failure prints one line and exits with its sysexits status (docs/clients.md, "Exit status").
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        guard var asyncCommand = command as? any AsyncParsableCommand else {
            do {
                try command.run()
                Glibc.exit(0)
            } catch {
                exit(withError: error)
            }
        }
        await CommandFailure.run(&asyncCommand)
    }
}

/// The socket option shared by the commands that talk to a daemon.
struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: "Control socket (default: $RECORDERD_SOCKET or /run/recorderd/control.sock).")
    var socket: String?

    var path: String {
        socket ?? ProcessInfo.processInfo.environment["RECORDERD_SOCKET"] ?? "/run/recorderd/control.sock"
    }

    func connect() async throws -> RecorderClient {
        do {
            return try await RecorderClient.connect(socketPath: path)
        } catch {
            throw CommandFailure("\(error) (is recorderd running? set --socket)", .unavailable)
        }
    }
}

/// Prints values as pretty JSON.
enum Output {
    static func json<T: Encodable>(_ value: T) throws {
        print(String(decoding: try JSONTextEncoder(prettyPrinted: true).encode(value), as: UTF8.self))
    }
}
