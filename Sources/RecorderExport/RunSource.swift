import Foundation
import RecorderModel

/// A run directory opened for export: its manifest and its record files, read-only.
///
/// The manifest may come from a copied folder: every file it names must be a plain name inside
/// the directory (no `/`, no `..`), or the export stops with an error.
public struct RunSource: Sendable {
    /// The run directory.
    public let directory: String
    /// Its manifest.
    public let result: TaskResult

    /// Opens the run in `directory`.
    public init(directory: String) throws(ExportError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notARun("\(directory): no such directory")
        }
        guard let data = FileManager.default.contents(atPath: directory + "/taskResult.json") else {
            throw .notARun("\(directory) is not a run directory: it has no readable taskResult.json")
        }
        do {
            result = try TaskResult.makeDecoder().decode(TaskResult.self, from: data)
        } catch {
            throw .notARun("\(directory)/taskResult.json is not a task result: \(DecodingErrorDescription.describe(error, prefix: "taskResult"))")
        }
        self.directory = directory
        for file in result.asyncResults.compactMap(\.file) where !Self.isPlainName(file.relativePath) {
            throw .badFile("\(directory)/taskResult.json names \(file.relativePath.debugDescription): not a file of the run directory")
        }
    }

    /// The file results of JSON-lines files, in the manifest's order.
    public var recordFiles: [FileResult] {
        result.asyncResults.compactMap(\.file).filter { $0.relativePath.hasSuffix(".jsonl") }
    }

    /// The run's earliest uptime: the zero of exported `time` columns.
    public var startUptime: Double {
        let starts = result.asyncResults.compactMap(\.file).map(\.startUptime) + result.stepHistory.map(\.startUptime)
        return starts.min() ?? 0
    }

    /// The path of a file of the run.
    public func path(of file: FileResult) -> String { directory + "/" + file.relativePath }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0)
    }
}
