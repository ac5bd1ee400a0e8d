import ArgumentParser
import Foundation
import RecorderClient
import RecorderModel

/// A runtime failure of a command: one line on standard error, no usage text, and its sysexits
/// status (a command-line mistake stays a `ValidationError`: usage text and 64).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    var status: ExitStatus

    init(_ description: String, _ status: ExitStatus) {
        self.description = description
        self.status = status
    }

    /// A client error: the daemon's refusal or a connection problem.
    init(_ error: RecorderClientError) {
        switch error {
        case .rpc(let e): self.init(error.description, ExitStatus.forRPCError(code: e.code))
        case .connectionFailed: self.init("\(error) (is recorderd running? set --socket)", .unavailable)
        case .connectionClosed: self.init(error.description, .unavailable)
        case .invalidResponse: self.init(error.description, .software)
        }
    }

    /// Runs `command`, turning runtime failures into one line and their status; parse and
    /// validation errors keep ArgumentParser's usage text and 64.
    static func run(_ command: inout some AsyncParsableCommand) async -> Never {
        do {
            try await command.run()
            exit(0)
        } catch let failure as CommandFailure {
            fail(failure)
        } catch let error as RecorderClientError {
            fail(CommandFailure(error))
        } catch {
            RecorderctlCommand.exit(withError: error)
        }
    }

    static func fail(_ failure: CommandFailure) -> Never {
        FileHandle.standardError.write(Data("recorderctl: \(failure.description)\n".utf8))
        exit(failure.status.rawValue)
    }
}
