import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// `sage`: SageResearch's upload archive — a zip holding `info.json` (the Bridge upload's file
/// list and app), `metadata.json` (`RSDTaskMetadata`: device, app, task, run UUID, dates, and
/// `files`, one `RSDFileManifest` per other entry), `taskResult.json` (the run's manifest, its
/// file results pointing at the archive's files), and each recorder's file as SageResearch
/// writes it: one JSON array, the step marker first, records with SageResearch's field names and
/// units (`application/json`); audio files as recorded.
///
/// Each JSON array is written to a temporary file next to the output and streamed into the
/// archive (deflated), so memory stays flat; the temporary files are removed.
public struct SageExporter: Exporter {
    public var format: ExportFormat { .sage }
    /// `deviceInfo` of the metadata (default: the kernel, machine and board model).
    public var deviceInfo: String
    public var deviceTypeIdentifier: String

    public init(deviceInfo: String? = nil, deviceTypeIdentifier: String? = nil) {
        let system = SystemDescription.current
        self.deviceInfo = deviceInfo ?? system.info
        self.deviceTypeIdentifier = deviceTypeIdentifier ?? system.model
    }

    /// One entry of the archive.
    struct Entry {
        var filename: String
        var contentType: String
        var identifier: String
        var stepPath: String?
        var timestamp: Date
    }

    public func export(_ run: RunSource, to output: String) throws(ExportError) -> ExportReport {
        try OutputDirectory.refuseInside(output, runDirectory: run.directory)
        guard !FileManager.default.fileExists(atPath: output) else {
            throw .output("\(output) exists: choose a new path (an export never writes over files)")
        }
        var report = ExportReport()
        if run.result.status == .recording {
            report.warnings.append("the run is still recording: exported up to its last complete line")
        }
        let scratch = PathText.parent(of: OutputDirectory.resolved(output)) + "/.recorderd-export-\(UUID().uuidString)"
        guard mkdir(scratch, 0o700) == 0 else { throw .output("cannot create \(scratch): \(String(cString: strerror(errno)))") }
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let archive = try ZipArchiveWriter(creating: output)
        var completed = false
        defer { if !completed { unlink(output) } }
        let modifiedDate = run.result.endDate ?? run.result.startDate
        let modified = Int64(modifiedDate.timeIntervalSince1970.rounded(.down))
        var entries: [Entry] = []
        var archived = run.result

        for (index, result) in run.result.asyncResults.enumerated() {
            guard let file = result.file else { continue }
            let entry: Entry
            if file.relativePath.hasSuffix(".jsonl") {
                let name = String(file.relativePath.dropLast(6)) + ".json"
                let (records, stepPath, torn) = try Self.writeArray(from: run.path(of: file), to: scratch + "/" + name, schema: run.schema)
                report.records += records
                if torn { report.warnings.append("\(file.relativePath): its last line was torn (an interrupted write) and is left out") }
                entry = Entry(filename: name, contentType: "application/json", identifier: file.identifier, stepPath: stepPath,
                              timestamp: file.endDate ?? file.startDate)
                try archive.add(name: name, contentsOf: scratch + "/" + name, modified: modified)
                var renamed = file
                renamed.relativePath = name
                renamed.contentType = entry.contentType
                archived.asyncResults[index] = .file(renamed)
            } else {
                guard FileManager.default.fileExists(atPath: run.path(of: file)) else {
                    report.warnings.append("\(file.relativePath) is missing from the run directory and left out")
                    continue
                }
                entry = Entry(filename: file.relativePath, contentType: file.contentType, identifier: file.identifier, stepPath: nil,
                              timestamp: file.endDate ?? file.startDate)
                try archive.add(name: file.relativePath, contentsOf: run.path(of: file), modified: modified)
            }
            entries.append(entry)
        }

        let taskResult = Entry(filename: "taskResult.json", contentType: "application/json", identifier: "taskResult", stepPath: nil, timestamp: modifiedDate)
        try archive.add(name: taskResult.filename, bytes: try Self.json(archived), modified: modified)
        entries.insert(taskResult, at: 0)
        try archive.add(name: "metadata.json", bytes: metadata(run.result, entries: entries), modified: modified)
        try archive.add(name: "info.json", bytes: info(run.result, entries: entries), modified: modified)
        try archive.finish()
        completed = true
        report.files = [output]
        return report
    }

    /// Converts a JSON-lines file to a JSON array file; returns the records, the step path of its
    /// first line (the recorder's start) and whether its last line was torn.
    static func writeArray(from path: String, to target: String, schema: RecordSchema = .standard) throws(ExportError) -> (Int, String?, Bool) {
        let out = try OutputFile(path: target)
        var encoder = JSONLinesEncoder(reservingCapacity: 4096)
        var first = true
        var stepPath: String?
        try out.append("[\n")
        let outcome = try RecordFileReader(path: path, schema: schema).forEachPrefetched { (record) throws(ExportError) in
            if first { stepPath = record.stepPath }
            encoder.removeAll()
            encoder.appendRecord(record, schema: schema)
            if !first { try out.append(",\n") }
            first = false
            try out.append(encoder.bytes.dropLast())
        }
        try out.append("\n]\n")
        try out.close()
        return (outcome.records, stepPath, outcome.tornLastLine)
    }

    static func json(_ value: some Encodable) throws(ExportError) -> [UInt8] {
        do {
            return try JSONTextEncoder(prettyPrinted: true).encode(value)
        } catch {
            throw .output("cannot encode: \(error)")
        }
    }

    /// `metadata.json`: `RSDTaskMetadata`'s fields.
    func metadata(_ result: TaskResult, entries: [Entry]) throws(ExportError) -> [UInt8] {
        try Self.json(SageMetadata(deviceInfo: deviceInfo, deviceTypeIdentifier: deviceTypeIdentifier, appName: "recorderd",
                                   appVersion: RecorderVersion.string, rsdFrameworkVersion: "recorderd \(RecorderVersion.string)",
                                   taskIdentifier: result.taskIdentifier, taskRunUUID: result.taskRunUUID, startDate: result.startDate,
                                   endDate: result.endDate ?? result.startDate,
                                   files: entries.map { SageMetadata.File(filename: $0.filename, timestamp: $0.timestamp, contentType: $0.contentType,
                                                                          identifier: $0.identifier, stepPath: $0.stepPath) }))
    }

    /// `info.json`: the Bridge upload's description of the archive.
    func info(_ result: TaskResult, entries: [Entry]) throws(ExportError) -> [UInt8] {
        try Self.json(SageInfo(files: entries.map { SageInfo.File(filename: $0.filename, timestamp: $0.timestamp, contentType: $0.contentType) },
                               item: result.taskIdentifier, schemaRevision: 1, appName: "recorderd", appVersion: RecorderVersion.string,
                               phoneInfo: deviceInfo, dataFilename: "taskResult.json", format: "v1_legacy",
                               createdOn: result.endDate ?? result.startDate, taskRunUUID: result.taskRunUUID))
    }
}
