import FoundationEssentials
import Glibc
import RecorderExport
import RecorderModel
import RecorderPlot
import RecorderRuntime

/// The files the Runs pages hand out, made from a run directory as `recorderctl export` and
/// `recorderctl plot` make them, in a temporary folder removed once sent. Blocking work: called
/// through `QueueHandOff.blocking`.
enum RunFiles {
    /// A made file: its path, the name the browser saves it as, its type, and the folder to remove.
    struct Made: Sendable {
        var path: String
        var fileName: String
        var contentType: String
        var scratch: String
    }

    /// True when `id` can be a task-run UUID or a prefix of one (hex digits and dashes): anything
    /// else (a path, `..`, a slash) is refused before the daemon is asked.
    static func isRunID(_ id: String) -> Bool {
        (1...36).contains(id.utf8.count) && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) || $0 == 45 }
    }

    /// True when `directory` (resolved, symbolic links followed) is inside `dataDirectory`.
    static func isInside(_ directory: String, dataDirectory: String) -> Bool {
        guard let run = realpath(directory), let data = realpath(dataDirectory) else { return false }
        return run.hasPrefix(data.hasSuffix("/") ? data : data + "/")
    }

    static func realpath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The default file name `recorderctl export` gives: `<task>-<uuid prefix>.<extension>`.
    static func baseName(_ result: TaskResult) -> String {
        "\(result.taskIdentifier)-\(result.taskRunUUID.uuidString.prefix(8).lowercased())"
    }

    static func scratchDirectory() throws(ExportError) -> String {
        let path = (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp") + "/recorderd-web-\(UUID().uuidString)"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } catch {
            throw .output("cannot make a temporary folder: \(error)")
        }
        return path
    }

    /// The run exported to `format` (a CSV export's folder zipped).
    static func export(_ directory: String, format: ExportFormat) -> Result<Made, ExportError> {
        making(directory) { source, scratch throws(ExportError) in
            let name = baseName(source.result) + "." + format.fileExtension
            let output = scratch + "/" + name
            _ = try format.exporter.export(source, to: output)
            guard format == .csv else {
                return Made(path: output, fileName: name, contentType: contentType(format), scratch: scratch)
            }
            let zip = output + ".zip"
            try ZipArchiveWriter.zip(folder: output, as: name, to: zip)
            return Made(path: zip, fileName: name + ".zip", contentType: "application/zip", scratch: scratch)
        }
    }

    /// The run's plot as PNG or SVG.
    static func plot(_ directory: String, svg: Bool) -> Result<Made, ExportError> {
        making(directory) { source, scratch throws(ExportError) in
            let name = baseName(source.result) + (svg ? ".svg" : ".png")
            let output = scratch + "/" + name
            try RunPlot(run: source).write(to: output)
            return Made(path: output, fileName: name, contentType: svg ? "image/svg+xml" : "image/png", scratch: scratch)
        }
    }

    /// Reads the run and makes a file in a new scratch folder, removed again when making fails.
    static func making(_ directory: String, _ make: (RunSource, String) throws(ExportError) -> Made) -> Result<Made, ExportError> {
        Result { () throws(ExportError) -> Made in
            let source = try RunSource(directory: directory)
            let scratch = try scratchDirectory()
            do throws(ExportError) {
                return try make(source, scratch)
            } catch {
                try? FileManager.default.removeItem(atPath: scratch)
                throw error
            }
        }
    }

    static func contentType(_ format: ExportFormat) -> String {
        switch format {
        case .mcap: return "application/octet-stream"
        case .sage: return "application/zip"
        case .fhir: return "application/fhir+json"
        case .mork, .csv: return "application/json"
        }
    }
}
