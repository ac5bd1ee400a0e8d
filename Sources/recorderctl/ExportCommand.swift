import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderExport
import RecorderModel

/// `recorderctl export RUN --format F [-o PATH]`: a run in a format other tools read. Works on a
/// run directory without a daemon; never changes the run's files.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a run: csv (SI units, mobgap's table), mcap (Foxglove), sage (SageResearch archive), fhir (FHIR R4 Bundle), mork (Patient Cloud Gateway payload).")
    @OptionGroup var target: RunArguments
    @Option(help: "The format: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String
    @Option(name: .shortAndLong, help: "Where to write (default: <task>-<uuid prefix>.<format> here).") var output: String?
    @Option(help: "fhir: the subject of every resource (a reference: Patient/123).") var subject: String?
    @Option(help: "mork: a JSON file of the form's identifiers and item_oid mapping (docs/exports.md).") var mapping: String?
    @Option(name: .customLong("subject-name"), help: "mork: subject_name.") var subjectName: String?
    @Option(name: .customLong("study-uuid"), help: "mork: study_uuid.") var studyUUID: String?
    @Option(name: .customLong("folder-oid"), help: "mork: folder_oid.") var folderOID: String?
    @Option(name: .customLong("form-oid"), help: "mork: form_oid.") var formOID: String?
    @Option(name: .customLong("site-oid"), help: "mork: site_oid.") var siteOID: String?
    @Option(name: .customLong("log-line"), help: "mork: log_line (default 1).") var logLine: Int?

    func validate() throws {
        guard let chosen = ExportFormat(rawValue: format) else { throw ValidationError(ExportError.unknownFormat(format).description) }
        let morkOptions: [Any?] = [mapping, subjectName, studyUUID, folderOID, formOID, siteOID, logLine]
        if chosen != .mork, morkOptions.contains(where: { $0 != nil }) { throw ValidationError("--mapping, --subject-name, --study-uuid, --folder-oid, --form-oid, --site-oid and --log-line are options of --format mork") }
        if chosen != .fhir, subject != nil { throw ValidationError("--subject is an option of --format fhir") }
        if let logLine, !MORKForm.logLineRange.contains(logLine) { throw ValidationError("--log-line: expected 1 to \(MORKForm.logLineRange.upperBound)") }
    }

    /// The exporter, with the format's options.
    func exporter(_ format: ExportFormat) throws(ExportError) -> any Exporter {
        switch format {
        case .fhir:
            return FHIRExporter(subject: subject)
        case .mork:
            var form = try mapping.map { (path) throws(ExportError) in try MORKForm.load(path) } ?? MORKForm()
            form.subjectName = subjectName ?? form.subjectName
            form.studyUUID = studyUUID ?? form.studyUUID
            form.folderOID = folderOID ?? form.folderOID
            form.formOID = formOID ?? form.formOID
            form.siteOID = siteOID ?? form.siteOID
            form.logLine = logLine ?? form.logLine
            return MORKExporter(form: form)
        case .csv, .mcap, .sage:
            return format.exporter
        }
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
        let directory = try await target.details().summary.runDirectory
        let source: RunSource
        do {
            source = try RunSource(directory: directory)
        } catch {
            throw CommandFailure(error)
        }
        let output = self.output ?? "\(source.result.taskIdentifier)-\(source.result.taskRunUUID.uuidString.prefix(8).lowercased()).\(format.fileExtension)"
        let report: ExportReport
        do {
            report = try exporter(format).export(source, to: output)
        } catch {
            throw CommandFailure(error)
        }
        CommandFailure.warn(report.warnings)
        if target.json { return try Output.json(Written(format: format.rawValue, output: output, files: report.files, records: report.records, warnings: report.warnings)) }
        print("exported \(report.records) records of \(source.result.taskRunUUID) to \(output) (\(format.rawValue)): \(report.files.count) files")
    }
}
