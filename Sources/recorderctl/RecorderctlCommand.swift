import ArgumentParser
import Foundation
import RecorderClient
import RecorderModel

/// `recorderctl`: talk to recorderd.
@main
struct RecorderctlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recorderctl",
        abstract: "Control recorderd: status, devices, live tail, task runs, demo.",
        version: RecorderVersion.string,
        subcommands: [StatusCommand.self, DevicesCommand.self, TailCommand.self, RunCommand.self,
                      StartCommand.self, StepCommand.self, FinishCommand.self, CancelCommand.self, DemoCommand.self])
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
            throw ValidationError("\(error) (is recorderd running? set --socket)")
        }
    }
}

/// Prints values as pretty JSON.
enum Output {
    static func json<T: Encodable>(_ value: T) throws {
        let data = try TaskResult.makeEncoder(pretty: true).encode(value)
        print(String(decoding: data, as: UTF8.self))
    }
}
