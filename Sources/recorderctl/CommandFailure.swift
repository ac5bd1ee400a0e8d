import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderExport
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// A runtime failure of a command: one line on standard error, no usage text, and its sysexits
/// status (a command-line mistake stays a `ValidationError`: usage text and 64).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    var status: SysexitStatus

    init(_ description: String, _ status: SysexitStatus) {
        self.description = description
        self.status = status
    }

    /// A client error: the daemon's refusal or a connection problem.
    init(_ error: RecorderClientError) {
        switch error {
        case .rpc(let e): self.init(error.description, SysexitStatus.forRPCError(code: e.code))
        case .connectionFailed: self.init("\(error) (is recorderd running? set --socket)", .unavailable)
        case .connectionClosed: self.init(error.description, .unavailable)
        case .invalidResponse: self.init(error.description, .software)
        }
    }

    /// An export's or a plot's failure: an unreadable run is no input, a bad line bad data, an
    /// output that cannot be created its own status.
    init(_ error: ExportError) {
        switch error {
        case .notARun, .badFile: self.init(error.description, .noInput)
        case .malformedLine: self.init(error.description, .dataError)
        case .output: self.init(error.description, .cannotCreate)
        case .unknownFormat, .option: self.init(error.description, .usage)
        }
    }

    /// Warnings of a command that succeeded, one line each on standard error.
    static func warn(_ warnings: [String]) {
        for warning in warnings { StandardStreams.error("recorderctl: warning: \(warning)\n") }
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
        StandardStreams.error("recorderctl: \(failure.description)\n")
        exit(failure.status.rawValue)
    }
}
