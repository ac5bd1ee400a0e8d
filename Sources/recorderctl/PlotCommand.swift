import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderExport
import RecorderModel
import RecorderPlot

/// `recorderctl plot RUN [-o FILE.png|.svg]`: a run drawn — a panel per sensor type, steps
/// shaded, gaps and errors marked. Works on a run directory without a daemon.
struct PlotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot", abstract: "Plot a run: a panel per sensor type, steps shaded, gaps, errors and gait steps marked.")
    @OptionGroup var target: RunArguments
    @Option(name: .shortAndLong, help: "The image: .png or .svg (default: <task>-<uuid prefix>.png here).") var output: String?

    struct Plotted: Encodable {
        var taskRunUUID: UUID
        var output: String
        var panels: Int
        var warnings: [String]
    }

    func validate() throws {
        if let output, !(output.lowercased().hasSuffix(".png") || output.lowercased().hasSuffix(".svg")) {
            throw ValidationError("--output: the file name must end in .png or .svg")
        }
    }

    func run() async throws {
        let directory = try await target.details().summary.runDirectory
        let (uuid, output, plot) = try Self.draw(directory, output: output)
        CommandFailure.warn(plot.warnings)
        if target.json { return try Output.json(Plotted(taskRunUUID: uuid, output: output, panels: plot.panelCount, warnings: plot.warnings)) }
        print("plotted \(uuid) to \(output) (\(plot.panelCount) panels)")
    }

    /// Reads the run and writes its plot; failures as one line and their exit status.
    static func draw(_ directory: String, output: String?) throws(CommandFailure) -> (UUID, String, RunPlot) {
        do {
            let source = try RunSource(directory: directory)
            let output = output ?? "\(source.result.taskIdentifier)-\(source.result.taskRunUUID.uuidString.prefix(8).lowercased()).png"
            let plot = try RunPlot(run: source)
            try plot.write(to: output)
            return (source.result.taskRunUUID, output, plot)
        } catch {
            throw CommandFailure(error)
        }
    }
}
