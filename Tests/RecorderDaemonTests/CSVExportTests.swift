import Foundation
import RecorderClient
import RecorderEngine
import RecorderExport
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import Testing

/// `csv` exports of a real recorded run, checked against its JSON lines read by Foundation's
/// JSONDecoder (not our decoder), sample for sample with the units converted; bad inputs and
/// outputs; and `recorderctl export` on a run directory without a daemon.
@Suite("CSV export", .timeLimit(.minutes(2)))
struct CSVExportTests {
    /// A finished run of about 300 motion samples at 4× speed, with a step change in it.
    static func recordedRun() async throws -> (TestDaemon, TaskResult, String) {
        let d = try await TestDaemon.inProcess(speed: 4)
        let client = try await d.client()
        let (result, directory) = try await recordSteps(client, task: "walk", actions: [.motion("motion", startStepIdentifier: "out", stopStepIdentifier: "back")],
                                                        steps: [("out", 150), ("back", 150)])
        client.close()
        return (d, result, directory)
    }

    /// The CSV's lines split into fields (our exports quote nothing in these files).
    static func table(_ path: String) throws -> (header: [String], rows: [[String]]) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the file ends with a newline")
        let fields = lines.dropLast().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return (fields[0], Array(fields.dropFirst()))
    }

    /// Every file of a directory and its bytes' SHA-256, to prove an export changed nothing.
    static func fingerprint(_ directory: String) throws -> [String: String] {
        var prints: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            prints[name] = SHA256.hexDigest(ofFile: directory + "/" + name) ?? "unreadable"
        }
        return prints
    }

    @Test(.ownThread) func motionIsOneRowPerSampleInMetresPerSecondSquaredAndDegreesPerSecond() async throws {
        let (d, result, directory) = try await Self.recordedRun()
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let before = try Self.fingerprint(directory)
        let output = d.directory + "/export"
        let report = try CSVExporter().export(try RunSource(directory: directory), to: output)
        #expect(try Self.fingerprint(directory) == before, "the run's files changed")

        let records = try Fixtures.records(directory + "/motion.jsonl")
        #expect(report.records == records.count && report.warnings.isEmpty)
        let (header, rows) = try Self.table(output + "/motion.csv")
        #expect(header == ["time", "uptime", "stepPath", "acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"])
        // One row per sample: the accelerometer and gyro records of one uptime joined.
        let accelerometer = records.filter { $0.sensorType == "accelerometer" && $0.isSample }
        let gyro = Dictionary(records.filter { $0.sensorType == "gyro" && $0.isSample }.map { ($0.uptime!, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(rows.count == accelerometer.count && accelerometer.count > 250)
        let zero = try #require(result.asyncResults.first?.file?.startUptime)
        for (row, a) in zip(rows, accelerometer) {
            let g = try #require(gyro[a.uptime!])
            #expect(Double(row[1]) == a.uptime && Double(row[0]) == a.uptime! - zero && row[2] == a.stepPath)
            #expect([Double(row[3]), Double(row[4]), Double(row[5])] == [a.x! * 9.80665, a.y! * 9.80665, a.z! * 9.80665])
            let toDegrees = 180 / Double.pi
            #expect([Double(row[6]), Double(row[7]), Double(row[8])] == [g.x! * toDegrees, g.y! * toDegrees, g.z! * toDegrees])
        }
        // Physics: standing at the start, the accelerometer reads about +9.8 m/s² in all.
        let first = rows[0].dropFirst(3).prefix(3).map { Double($0)! }
        #expect(abs((first.map { $0 * $0 }.reduce(0, +)).squareRoot() - 9.81) < 0.5, "\(first)")
        // The steps, and between them the task itself (records carry the task identifier there).
        let paths = Set(rows.map { $0[2] })
        #expect(paths.isSuperset(of: ["walk/out", "walk/back"]) && paths.isSubset(of: ["walk", "walk/out", "walk/back"]), "\(paths)")
        // The markers (the first line and the step change) are the events.
        let (eventHeader, events) = try Self.table(output + "/motion.events.csv")
        #expect(eventHeader.first == "time" && eventHeader.contains("droppedSamples"))
        #expect(events.count == records.filter(\.isMarker).count + records.filter(\.isGap).count && events.count >= 2)
        let readme = try String(contentsOfFile: output + "/README.md", encoding: .utf8)
        #expect(readme.contains("| acc_x | m/s^2 |") && readme.contains("| gyr_x | deg/s |"))
        #expect(report.files.sorted() == [output + "/README.md", output + "/motion.csv", output + "/motion.events.csv"])

        // Never over an existing export, never into the run.
        #expect(throws: ExportError.self) { try CSVExporter().export(try RunSource(directory: directory), to: output) }
        #expect(throws: ExportError.self) { try CSVExporter().export(try RunSource(directory: directory), to: directory + "/csv") }
        #expect(try Self.fingerprint(directory) == before)
        try await d.stop()
    }

    @Test(.ownThread) func aTornRunExportsItsCompleteLinesAndSaysSoAndBadDirectoriesAreRefused() async throws {
        let (d, _, directory) = try await Self.recordedRun()
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        // A copy whose last line was cut by power loss.
        let copy = d.directory + "/copy"
        try FileManager.default.copyItem(atPath: directory, toPath: copy)
        let handle = try #require(FileHandle(forWritingAtPath: copy + "/motion.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"uptime":12.5,"timestamp":1,"sensorType":"accel"#.utf8))
        try handle.close()
        let report = try CSVExporter().export(try RunSource(directory: copy), to: d.directory + "/torn")
        #expect(report.warnings.count == 1 && report.warnings[0].contains("torn"), "\(report.warnings)")
        #expect(report.records == (try Fixtures.records(directory + "/motion.jsonl")).count)

        // A manifest naming a file outside the run: refused before anything is read.
        let tricked = d.directory + "/tricked"
        try FileManager.default.copyItem(atPath: directory, toPath: tricked)
        let manifest = try String(contentsOfFile: tricked + "/taskResult.json", encoding: .utf8)
        try manifest.replacingOccurrences(of: "\"motion.jsonl\"", with: "\"../../etc/passwd\"").write(toFile: tricked + "/taskResult.json", atomically: true, encoding: .utf8)
        #expect(throws: ExportError.self) { try RunSource(directory: tricked) }
        #expect(throws: ExportError.self) { try RunSource(directory: d.directory) }
        #expect(throws: ExportError.self) { try RunSource(directory: d.directory + "/nothing") }

        // recorderctl export on a directory, no daemon: its exit statuses.
        let ctl = ChildProcess.executable("recorderctl")
        func recorderctl(_ arguments: [String]) async throws -> (Int32, String) {
            let p = try await ChildProcess(ctl, arguments + ["--socket", d.directory + "/none.sock"])
            let status = try await p.wait(timeout: 30)
            return (status, p.printed)
        }
        let (ok, okText) = try await recorderctl(["export", directory, "--format", "csv", "-o", d.directory + "/cli"])
        #expect(ok == 0 && okText.contains("exported"), "\(okText)")
        #expect(FileManager.default.fileExists(atPath: d.directory + "/cli/motion.csv"))
        let (again, againText) = try await recorderctl(["export", directory, "--format", "csv", "-o", d.directory + "/cli"])
        #expect(again == SysexitStatus.cannotCreate.rawValue && againText.contains("exists"), "\(againText)")
        let (format, formatText) = try await recorderctl(["export", directory, "--format", "xlsx"])
        #expect(format == SysexitStatus.usage.rawValue && formatText.contains("unknown format"), "\(formatText)")
        let (notRun, notRunText) = try await recorderctl(["export", d.directory, "--format", "csv", "-o", d.directory + "/x"])
        #expect(notRun == SysexitStatus.noInput.rawValue && notRunText.contains("not a run directory"), "\(notRunText)")
        // recorderctl plot: the accelerometer's and the gyroscope's panels; only .png and .svg.
        let (plotted, plottedText) = try await recorderctl(["plot", directory, "-o", d.directory + "/walk.png", "--json"])
        #expect(plotted == 0 && plottedText.contains("\"panels\" : 2"), "\(plottedText)")
        #expect(((try? FileManager.default.attributesOfItem(atPath: d.directory + "/walk.png")[.size] as? Int) ?? 0) > 10_000)
        let (jpeg, jpegText) = try await recorderctl(["plot", directory, "-o", d.directory + "/walk.jpg"])
        #expect(jpeg == SysexitStatus.usage.rawValue && jpegText.contains(".png or .svg"), "\(jpegText)")
        let (over, overText) = try await recorderctl(["plot", directory, "-o", d.directory + "/walk.png"])
        #expect(over == SysexitStatus.cannotCreate.rawValue && overText.contains("exists"), "\(overText)")
        try await d.stop()
    }
}
