import Foundation
import RecorderJSON
import RecorderModel
import ZIPFoundation

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
        let scratch = (OutputDirectory.resolved(output) as NSString).deletingLastPathComponent + "/.recorderd-export-\(UUID().uuidString)"
        guard mkdir(scratch, 0o700) == 0 else { throw .output("cannot create \(scratch): \(String(cString: strerror(errno)))") }
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: output), accessMode: .create)
        } catch {
            throw .output("\(output): \(error)")
        }
        var completed = false
        defer { if !completed { try? FileManager.default.removeItem(atPath: output) } }
        let modified = run.result.endDate ?? run.result.startDate
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
                try Self.add(archive, name: name, from: scratch + "/" + name, modified: modified)
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
                try Self.add(archive, name: file.relativePath, from: run.path(of: file), modified: modified)
            }
            entries.append(entry)
        }

        let taskResult = Entry(filename: "taskResult.json", contentType: "application/json", identifier: "taskResult", stepPath: nil, timestamp: modified)
        try Self.add(archive, name: taskResult.filename, data: try Self.json(archived), modified: modified)
        entries.insert(taskResult, at: 0)
        try Self.add(archive, name: "metadata.json", data: metadata(run.result, entries: entries), modified: modified)
        try Self.add(archive, name: "info.json", data: info(run.result, entries: entries), modified: modified)
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

    /// Adds a file to the archive, deflated, streamed in 64 KiB pieces.
    static func add(_ archive: Archive, name: String, from path: String, modified: Date) throws(ExportError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .badFile("\(path): cannot be read") }
        defer { try? handle.close() }
        let size: Int64
        do {
            size = Int64(try handle.seekToEnd())
            try archive.addEntry(with: name, type: .file, uncompressedSize: size, modificationDate: modified, permissions: 0o644,
                                 compressionMethod: .deflate, bufferSize: 1 << 16) { position, length in
                try handle.seek(toOffset: UInt64(position))
                return handle.readData(ofLength: length)
            }
        } catch {
            throw .output("\(name) into the archive: \(error)")
        }
    }

    static func add(_ archive: Archive, name: String, data: Data, modified: Date) throws(ExportError) {
        do {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: modified, permissions: 0o644,
                                 compressionMethod: .deflate) { position, length in
                data.subdata(in: Int(position)..<Int(position) + length)
            }
        } catch {
            throw .output("\(name) into the archive: \(error)")
        }
    }

    static func json(_ value: some Encodable) throws(ExportError) -> Data {
        do {
            return Data(try JSONTextEncoder(prettyPrinted: true).encode(value))
        } catch {
            throw .output("cannot encode: \(error)")
        }
    }

    /// `metadata.json`: `RSDTaskMetadata`'s fields.
    func metadata(_ result: TaskResult, entries: [Entry]) throws(ExportError) -> Data {
        try Self.json(SageMetadata(deviceInfo: deviceInfo, deviceTypeIdentifier: deviceTypeIdentifier, appName: "recorderd",
                                   appVersion: RecorderVersion.string, rsdFrameworkVersion: "recorderd \(RecorderVersion.string)",
                                   taskIdentifier: result.taskIdentifier, taskRunUUID: result.taskRunUUID, startDate: result.startDate,
                                   endDate: result.endDate ?? result.startDate,
                                   files: entries.map { SageMetadata.File(filename: $0.filename, timestamp: $0.timestamp, contentType: $0.contentType,
                                                                          identifier: $0.identifier, stepPath: $0.stepPath) }))
    }

    /// `info.json`: the Bridge upload's description of the archive.
    func info(_ result: TaskResult, entries: [Entry]) throws(ExportError) -> Data {
        try Self.json(SageInfo(files: entries.map { SageInfo.File(filename: $0.filename, timestamp: $0.timestamp, contentType: $0.contentType) },
                               item: result.taskIdentifier, schemaRevision: 1, appName: "recorderd", appVersion: RecorderVersion.string,
                               phoneInfo: deviceInfo, dataFilename: "taskResult.json", format: "v1_legacy",
                               createdOn: result.endDate ?? result.startDate, taskRunUUID: result.taskRunUUID))
    }
}
