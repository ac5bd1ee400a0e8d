import FoundationEssentials
import Glibc
import Logging
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// Finds task runs left `recording` by a crash or power loss and closes them as `interrupted`:
/// cuts each file's trailing partial line, recounts its records, rehashes it.
public enum RunRecovery {
    /// What recounting a JSON-lines file found.
    public struct FileSummary: Sendable, Equatable {
        public var sampleCount = 0
        public var droppedSamples = 0
        public var gapCount = 0
        public var errorCount = 0
        public var lastUptime: Double?
        public var sha256 = ""
        /// Bytes cut from the end (a partial line).
        public var truncatedBytes = 0
    }

    /// Recovers every interrupted run under `dataDirectory/runs`; returns their directories.
    @discardableResult
    public static func recover(dataDirectory: String, logger: Logger) -> [String] {
        let runsDirectory = dataDirectory + "/runs"
        let fm = FileManager.default
        var recovered: [String] = []
        guard let tasks = try? fm.contentsOfDirectory(atPath: runsDirectory) else { return [] }
        for task in tasks.sorted() {
            guard let runs = try? fm.contentsOfDirectory(atPath: runsDirectory + "/" + task) else { continue }
            for run in runs.sorted() {
                let directory = "\(runsDirectory)/\(task)/\(run)"
                // Most runs ended long ago: their status is read from the parsed text, and only a
                // run still `recording` is decoded whole (start-up reads every run's manifest).
                guard let data = FileManager.default.contents(atPath: directory + "/" + TaskResultStore.fileName),
                      case .object(let members)? = try? JSONParser.parseDocument(data).value,
                      members["status"] == .string(TaskRunStatus.recording.rawValue),
                      let result = try? TaskResultStore.read(directory: directory), result.status == .recording else { continue }
                do {
                    try recoverRun(directory: directory, result: result)
                    recovered.append(directory)
                    logger.warning("recovered interrupted task run", metadata: ["directory": "\(directory)"])
                } catch {
                    logger.error("could not recover task run", metadata: ["directory": "\(directory)", "error": "\(error)"])
                }
            }
        }
        return recovered
    }

    /// Closes one run as `interrupted`.
    public static func recoverRun(directory: String, result original: TaskResult) throws {
        var result = original
        var known = Set<String>()
        var latestEnd: Date?
        for (i, async) in result.asyncResults.enumerated() {
            guard var file = async.file else { continue }
            known.insert(file.relativePath)
            if file.contentType == "audio/wav" {
                repairAudio(path: directory + "/" + file.relativePath, into: &file)
                result.asyncResults[i] = .file(file)
                continue
            }
            let summary = try repair(path: directory + "/" + file.relativePath)
            apply(summary, to: &file)
            latestEnd = max(latestEnd ?? file.endDate ?? result.startDate, file.endDate ?? result.startDate)
            result.asyncResults[i] = .file(file)
        }
        // Files whose recorder started after the last manifest write.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasSuffix(".jsonl") && !known.contains(name) {
            let path = directory + "/" + name
            let summary = try repair(path: path)
            let firstLine = (try? Data(contentsOf: URL(fileURLWithPath: path)))?.split(separator: UInt8(ascii: "\n")).first
            let marker = firstLine.flatMap { try? JSONLinesDecoder.decode(Array($0)) }
            let start = marker?.timestampDate.flatMap(ISO8601Timestamp.date(from:)) ?? result.startDate
            var file = FileResult(identifier: String(name.dropLast(6)), relativePath: name, startDate: start,
                                  startUptime: marker?.uptime ?? 0, units: [:])
            apply(summary, to: &file)
            result.asyncResults.insert(.file(file), at: 0)
        }
        for name in names.sorted() where name.hasSuffix(".wav") && !known.contains(name) {
            var file = FileResult(identifier: String(name.dropLast(4)) + "_audio", relativePath: name, contentType: "audio/wav",
                                  startDate: result.startDate, startUptime: 0, units: [:])
            repairAudio(path: directory + "/" + name, into: &file)
            result.asyncResults.append(.file(file))
        }
        result.status = .interrupted
        result.endDate = latestEnd ?? result.stepHistory.last?.endDate ?? result.stepHistory.last?.startDate ?? result.startDate
        try TaskResultStore.write(result, directory: directory)
    }

    /// Writes the sizes into a WAV header left at 0 by a crash; recounts the frames and rehashes.
    static func repairAudio(path: String, into file: inout FileResult) {
        guard let audio = WAVFileWriter.repairHeader(path: path) else { return }
        file.frameCount = audio.frames
        file.sampleRate = audio.sampleRate
        file.channels = audio.channels
        file.sha256 = SHA256.hexDigest(ofFile: path)
        if audio.sampleRate > 0, file.startUptime > 0 {
            file.endUptime = file.startUptime + Double(audio.frames) / Double(audio.sampleRate)
            file.endDate = file.startDate.addingTimeInterval(Double(audio.frames) / Double(audio.sampleRate))
        }
    }

    static func apply(_ summary: FileSummary, to file: inout FileResult) {
        file.sampleCount = summary.sampleCount
        file.droppedSamples = summary.droppedSamples
        file.gapCount = summary.gapCount
        file.errorCount = summary.errorCount > 0 ? summary.errorCount : nil
        file.sha256 = summary.sha256
        if let last = summary.lastUptime {
            file.endUptime = last
            file.endDate = file.startDate.addingTimeInterval(last - file.startUptime)
        }
    }

    /// Cuts a trailing partial line (and any line that is not JSON at the end), recounts, rehashes.
    public static func repair(path: String) throws -> FileSummary {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        var summary = FileSummary()
        let originalCount = data.count
        if let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) {
            data = data.prefix(through: lastNewline)
        } else {
            data = Data()
        }
        // The records' one reader (JSONLinesDecoder), as exports and live streams read them: a line
        // kept here is a line they read, and one cut here is one they would refuse.
        var cache = JSONLinesDecoder.Cache()
        var goodLength = 0
        var offset = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let lineLength = line.count + 1
            if offset + lineLength > data.count { break }
            if line.isEmpty {
                // A blank line holds no record: kept and passed over, as the exports pass over it.
                offset += lineLength
                goodLength = offset
                continue
            }
            guard let record = try? line.withUnsafeBytes({ try JSONLinesDecoder.decode($0.bindMemory(to: UInt8.self), cache: &cache) }) else { break }
            offset += lineLength
            goodLength = offset
            if record.isSample { summary.sampleCount += 1 }
            if record.isGap {
                summary.gapCount += 1
                summary.droppedSamples += record.droppedSamples ?? 0
            }
            if record.event == "error" { summary.errorCount += 1 }
            if let u = record.uptime, !record.isMarker || summary.lastUptime == nil { summary.lastUptime = max(summary.lastUptime ?? u, u) }
        }
        data = data.prefix(goodLength)
        summary.truncatedBytes = originalCount - goodLength
        if summary.truncatedBytes > 0 {
            guard truncate(path, off_t(goodLength)) == 0 else { throw StorageError("truncate", path: path, errno: errno) }
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            if fd >= 0 { _ = fsync(fd); close(fd) }
        }
        summary.sha256 = SHA256.hex(data)
        return summary
    }
}
