import Foundation
import RecorderExport

/// A synchronous export for instruction counts (scripts/count-instructions.sh export): valgrind
/// cannot run recorderctl, whose async main parks its main thread in dispatch's sigsuspend.
///
///     ExportCount FORMAT RUN_DIRECTORY OUTPUT
enum ExportCount {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let format = ExportFormat(rawValue: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: ExportCount csv|mcap|sage|fhir RUN_DIRECTORY OUTPUT\n".utf8))
            exit(64)
        }
        do {
            let report = try format.exporter.export(try RunSource(directory: arguments[2]), to: arguments[3])
            print(report.records)
        } catch {
            FileHandle.standardError.write(Data("ExportCount: \(error)\n".utf8))
            exit(1)
        }
    }
}
