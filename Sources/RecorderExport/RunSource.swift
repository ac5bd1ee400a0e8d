import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// A run directory opened for export: its manifest and its record files, read-only.
///
/// The manifest may come from a copied folder: every file it names must be a plain name inside
/// the directory (no `/`, no `..`), or the export stops with an error.
public struct RunSource: Sendable {
    /// The run directory.
    public let directory: String
    /// Its manifest.
    public let result: TaskResult
    /// What its records' fields are: every exporter reads and writes records by it.
    public let schema: RecordSchema

    /// Opens the run in `directory` (records of `schema`: recorderd's own unless they are extended).
    public init(directory: String, schema: RecordSchema = .standard) throws(ExportError) {
        self.schema = schema
        guard FileStatus.isDirectory(directory) else {
            throw .notARun("\(directory): no such directory")
        }
        guard let data = FileManager.default.contents(atPath: directory + "/taskResult.json") else {
            throw .notARun("\(directory) is not a run directory: it has no readable taskResult.json")
        }
        do {
            result = try JSONValueDecoder().decode(TaskResult.self, from: data)
        } catch {
            throw .notARun("\(directory)/taskResult.json is not a task result: \(DecodingErrorDescription.describe(error, prefix: "taskResult"))")
        }
        self.directory = directory
        for file in result.asyncResults.compactMap(\.file) where !Self.isPlainName(file.relativePath) {
            throw .badFile("\(directory)/taskResult.json names \(file.relativePath.debugDescription): not a file of the run directory")
        }
        var files = result.asyncResults.compactMap(\.file).filter { $0.relativePath.hasSuffix(".jsonl") }
        let named = Set(files.map(\.relativePath))
        let present = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") && !named.contains($0) }
        for name in present.sorted() {
            files.append(try Self.describe(directory + "/" + name, name: name, schema: schema))
        }
        recordFiles = files
    }

    /// A file result for a JSON-lines file the manifest does not list yet: its sensor types (and
    /// their units) and its first uptime, from its records.
    static func describe(_ path: String, name: String, schema: RecordSchema) throws(ExportError) -> FileResult {
        var types = Set<String>()
        var first: (uptime: Double, date: Date?)?
        _ = try RecordFileReader(path: path, schema: schema).forEach { (r) throws(ExportError) in
            if first == nil, let uptime = r.uptime { first = (uptime, r.timestampDate.flatMap(ISO8601Timestamp.date(from:))) }
            if let type = r.sensorType, r.event == nil || r.event == "step" || r.event == "bout" { types.insert(type) }
        }
        var units: [String: String] = [:]
        for type in types { units[type] = SensorType(rawValue: type)?.unit ?? "" }
        return FileResult(identifier: String(name.dropLast(6)), relativePath: name, startDate: first?.date ?? Date(timeIntervalSince1970: 0),
                          startUptime: first?.uptime ?? 0, units: units)
    }

    /// The JSON-lines files: the manifest's file results, in its order, then (a run still
    /// recording, or one interrupted before its manifest was final) the directory's other
    /// `.jsonl` files, described from their records.
    public let recordFiles: [FileResult]

    /// The run's earliest uptime: the zero of exported `time` columns.
    public var startUptime: Double {
        let starts = result.asyncResults.compactMap(\.file).map(\.startUptime) + result.stepHistory.map(\.startUptime)
        return starts.min() ?? 0
    }

    /// The path of a file of the run.
    public func path(of file: FileResult) -> String { directory + "/" + file.relativePath }

    /// A reader of one of its record files.
    public func reader(of file: FileResult) -> RecordFileReader { RecordFileReader(path: path(of: file), schema: schema) }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0)
    }
}
