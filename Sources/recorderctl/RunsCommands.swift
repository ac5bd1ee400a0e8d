import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// `recorderctl runs`: the data directory's runs, newest first.
struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "runs", abstract: "List the recorded runs, newest first.")
    @OptionGroup var socket: SocketOptions
    @Option(help: "Only runs of this task.") var task: String?
    @Option(help: "Only runs in this status (recording, finished, cancelled, interrupted, abandoned).") var status: String?
    @Option(help: "Only runs started at or after this ISO-8601 date.") var since: String?
    @Option(help: "Only runs started before this ISO-8601 date.") var until: String?
    @Option(help: "At most this many runs (1…1000).") var limit = 100
    @Option(help: "Skip this many runs first.") var offset = 0
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if let status, TaskRunStatus(rawValue: status) == nil {
            throw ValidationError("unknown status \(status.debugDescription): expected recording, finished, cancelled, interrupted or abandoned")
        }
        guard (1...RunsListParams.largestLimit).contains(limit) else { throw ValidationError("--limit: expected 1…\(RunsListParams.largestLimit)") }
        guard offset >= 0 else { throw ValidationError("--offset: expected 0 or more") }
    }

    func run() async throws {
        let client = try await socket.connect()
        let list = try await client.runs(RunsListParams(taskIdentifier: task, status: status.flatMap(TaskRunStatus.init(rawValue:)),
                                                        since: since, until: until, limit: limit, offset: offset))
        if json { return try Output.json(list) }
        guard !list.runs.isEmpty else { return print(list.total == 0 ? "no runs" : "no runs past \(offset) (of \(list.total))") }
        print("RUN       TASK                 STATUS       STARTED               DURATION  SAMPLES    GAPS  SIZE")
        for r in list.runs { print(Self.line(r)) }
        if list.total > list.offset + list.runs.count {
            print("… \(list.total - list.offset - list.runs.count) more (--offset \(list.offset + list.runs.count))")
        }
    }

    /// One run in a line: the UUID's first 8 characters (a prefix `show` and `rm` take).
    static func line(_ r: RunSummary) -> String {
        let uuid = String(r.taskRunUUID.uuidString.prefix(8)).lowercased()
        let duration = r.duration.map { CFormat.string("%7.1f s", $0) } ?? "      -  "
        return "\(uuid)  \(r.taskIdentifier.padded(20)) \(r.status.rawValue.padded(12)) \(ISO8601Timestamp.string(from: r.startDate).prefix(19).description.padded(20))  "
            + "\(duration)  \(String(r.samples).padded(9)) \(String(r.gapCount).padded(5)) \(ByteCount.text(r.sizeBytes))"
    }
}

/// `recorderctl show RUN`: a run's summary and its recorders; RUN is a UUID, a unique prefix of
/// one, or a run directory (read directly: no daemon needed).
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a run: its steps, recorders and totals.")
    @OptionGroup var target: RunArguments

    func run() async throws {
        let details = try await target.details()
        if target.json { return try Output.json(details) }
        let s = details.summary, result = details.taskResult
        print("\(s.taskIdentifier) \(s.taskRunUUID) — \(s.status.rawValue)")
        print("  directory  \(s.runDirectory)")
        print("  started    \(ISO8601Timestamp.string(from: s.startDate))" + (s.endDate.map { "  ended \(ISO8601Timestamp.string(from: $0))" } ?? ""))
        if let duration = s.duration { print(CFormat.string("  duration   %.1f s", duration)) }
        print("  size       \(ByteCount.text(s.sizeBytes))")
        print("  totals     \(s.samples) samples, \(s.gapCount) gaps (\(s.droppedSamples) samples lost), \(s.recorders) recorders" + (s.failedRecorders > 0 ? ", \(s.failedRecorders) failed" : ""))
        print("  steps")
        for step in result.stepHistory {
            let duration = step.endUptime.map { CFormat.string("%.1f s", $0 - step.startUptime) } ?? "not ended"
            print("    \(step.stepPath.padded(28)) \(duration)")
        }
        print("  recorders")
        for r in result.asyncResults {
            if let f = r.file {
                var line = "    \(f.identifier.padded(16)) \(f.relativePath.padded(24)) \(f.sampleCount) samples"
                if let frequency = f.frequency { line += CFormat.string(" at %.1f Hz", frequency) }
                if f.gapCount > 0 { line += ", \(f.gapCount) gaps (\(f.droppedSamples) lost)" }
                if let errors = f.errorCount, errors > 0 { line += ", \(errors) errors" }
                print(line)
            } else if let e = r.error {
                print("    \(e.identifier.padded(16)) error: \(e.errorDescription)")
            }
        }
    }
}

/// `recorderctl rm RUN`: deletes a run that is not recording, with its files. The daemon deletes
/// it (it knows which runs are recording); a run directory names the run by its manifest's UUID.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a run that is not recording, with all its files.")
    @OptionGroup var target: RunArguments

    func run() async throws {
        var name = target.run
        if RunReference.isDirectory(name) { name = try RunReference.local(name).summary.taskRunUUID.uuidString }
        let client = try await target.socket.connect()
        let deleted = try await client.deleteRun(name)
        if target.json { return try Output.json(deleted) }
        print("deleted \(deleted.taskRunUUID) (\(deleted.runDirectory)), \(ByteCount.text(deleted.freedBytes)) freed")
    }
}

/// Sizes for people: 1.5 MiB.
enum ByteCount {
    static func text(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : CFormat.string("%.1f ", value) + units[unit]
    }
}

extension String {
    /// The string padded with spaces (never cut) to `width`.
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
