import ArgumentParser
import Foundation
import RecorderClient
import RecorderExport
import RecorderModel

/// `recorderctl export RUN --format F [-o PATH]`: a run in a format other tools read. Works on a
/// run directory without a daemon; never changes the run's files.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export a run: csv (SI units, mobgap's table), mcap (Foxglove), sage (SageResearch archive).")
    @OptionGroup var socket: SocketOptions
    @Argument(help: "A task-run UUID, a unique prefix of one, or a run directory.") var run: String
    @Option(help: "The format: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String
    @Option(name: .shortAndLong, help: "Where to write (default: <task>-<uuid prefix>.<format> here).") var output: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard ExportFormat(rawValue: format) != nil else { throw ValidationError(ExportError.unknownFormat(format).description) }
    }

    struct Written: Encodable {
        var format: String
        var output: String
        var files: [String]
        var records: Int
        var warnings: [String]
    }

    func run() async throws {
        let format = ExportFormat(rawValue: format)!
        let directory = try await RunReference.details(run, socket: socket).summary.runDirectory
        let source: RunSource
        do {
            source = try RunSource(directory: directory)
        } catch {
            throw CommandFailure(error)
        }
        let output = self.output ?? "\(source.result.taskIdentifier)-\(source.result.taskRunUUID.uuidString.prefix(8).lowercased()).\(format.rawValue)"
        let report: ExportReport
        do {
            report = try format.exporter.export(source, to: output)
        } catch {
            throw CommandFailure(error)
        }
        CommandFailure.warn(report.warnings)
        if json { return try Output.json(Written(format: format.rawValue, output: output, files: report.files, records: report.records, warnings: report.warnings)) }
        print("exported \(report.records) records of \(source.result.taskRunUUID) to \(output) (\(format.rawValue)): \(report.files.count) files")
    }
}
