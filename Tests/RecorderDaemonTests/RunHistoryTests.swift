import Foundation
import RecorderClient
import RecorderDaemon
import RecorderEngine
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import Testing

/// `runs.list`, `runs.get`, `runs.delete` and the disk figures of `daemon.status`, through the
/// in-process daemon's socket, checked against the run directories and manifests on disk; and
/// `recorderctl runs`, `show` and `rm` against the same daemon.
@Suite("Run history", .timeLimit(.minutes(2)))
struct RunHistoryTests {
    /// A run of `task` recording motion for about `records` accelerometer samples, finished.
    static func record(_ client: RecorderClient, task: String, records: Int = 100) async throws -> TaskResult {
        let run = try await client.startTask(identifier: task, asyncActions: [.motion("motion", startStepIdentifier: "walk", stopStepIdentifier: "walk")])
        _ = try await run.startStep("\(task)/walk")
        try await awaitRecords(client, count: records)
        _ = try await run.finishStep("\(task)/walk")
        return try await run.finish()
    }

    @Test(.ownThread) func runsAreListedNewestFirstFilteredPagedAndDeleted() async throws {
        let d = try await TestDaemon.inProcess(speed: 4)
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let client = try await d.client()
        let first = try await Self.record(client, task: "walk")
        let second = try await Self.record(client, task: "balance")
        let third = try await Self.record(client, task: "walk")

        let all = try await client.runs()
        #expect(all.total == 3 && all.offset == 0)
        #expect(all.runs.map(\.taskRunUUID) == [third, second, first].map(\.taskRunUUID))
        // Each summary is its manifest's totals and its directory's size on disk.
        for (summary, result) in zip(all.runs, [third, second, first]) {
            let file = try #require(result.asyncResults.first?.file)
            #expect(summary.samples == file.sampleCount && summary.samples > 0)
            #expect(summary.recorders == 1 && summary.failedRecorders == 0 && summary.status == .finished)
            #expect(summary.gapCount == file.gapCount && summary.droppedSamples == file.droppedSamples)
            let onDisk = try Fixtures.records(summary.runDirectory + "/motion.jsonl").filter(\.isSample).count
            #expect(onDisk == summary.samples)
            #expect(summary.sizeBytes == DirectorySize.bytes(of: summary.runDirectory) && summary.sizeBytes > 0)
            #expect(abs((summary.duration ?? -1) - result.endDate!.timeIntervalSince(result.startDate)) < 1e-6)
        }
        #expect(try await client.runs(RunsListParams(taskIdentifier: "walk")).runs.map(\.taskRunUUID) == [third.taskRunUUID, first.taskRunUUID])
        #expect(try await client.runs(RunsListParams(status: .cancelled)).total == 0)
        let page = try await client.runs(RunsListParams(limit: 1, offset: 1))
        #expect(page.total == 3 && page.runs.map(\.taskRunUUID) == [second.taskRunUUID])
        #expect(try await client.runs(RunsListParams(offset: 5)).runs.isEmpty)
        let since = ISO8601Timestamp.string(from: second.startDate)
        #expect(try await client.runs(RunsListParams(since: since)).runs.map(\.taskRunUUID) == [third.taskRunUUID, second.taskRunUUID])
        #expect(try await client.runs(RunsListParams(until: since)).runs.map(\.taskRunUUID) == [first.taskRunUUID])

        // runs.get by a unique prefix; the manifest as written.
        let prefix = String(second.taskRunUUID.uuidString.prefix(8)).lowercased()
        let details = try await client.run(prefix)
        #expect(details.taskResult == second && details.summary.taskRunUUID == second.taskRunUUID)

        // daemon.status: the runs' bytes and the file system's free space (statvfs, independently).
        let status = try await client.status()
        let disk = try #require(status.disk)
        #expect(disk.runsBytes == all.runs.reduce(0) { $0 + $1.sizeBytes })
        var fs = statvfs()
        #expect(statvfs(d.dataDirectory, &fs) == 0)
        #expect(disk.totalBytes == Int64(fs.f_blocks) * Int64(fs.f_frsize))
        #expect(abs(Double(disk.freeBytes - Int64(fs.f_bavail) * Int64(fs.f_frsize))) < 64 * 1024 * 1024)

        // runs.delete: the directory and its files go; the UUID stays used.
        let deleted = try await client.deleteRun(first.taskRunUUID.uuidString)
        #expect(deleted.taskRunUUID == first.taskRunUUID && deleted.freedBytes == all.runs[2].sizeBytes)
        #expect(!FileManager.default.fileExists(atPath: all.runs[2].runDirectory))
        #expect(try await client.runs().runs.map(\.taskRunUUID) == [third.taskRunUUID, second.taskRunUUID])
        await #expect(throws: RecorderClientError.self) {
            _ = try await client.startTask(identifier: "walk", taskRunUUID: first.taskRunUUID, asyncActions: [])
        }
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func aRecordingRunIsNeverDeletedAndBadRequestsGetClearErrors() async throws {
        let d = try await TestDaemon.inProcess(speed: 4)
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let client = try await d.client()
        let run = try await client.startTask(identifier: "walk", asyncActions: [.motion("motion", startStepIdentifier: "walk", stopStepIdentifier: "walk")])
        _ = try await run.startStep("walk/walk")
        func code(_ body: () async throws -> Void) async -> Int? {
            do {
                try await body()
                return nil
            } catch RecorderClientError.rpc(let e) {
                return e.code
            } catch {
                return nil
            }
        }
        #expect(await code { _ = try await client.deleteRun(run.taskRunUUID.uuidString) } == RPCErrorCode.runInUse.rawValue)
        #expect(FileManager.default.fileExists(atPath: run.runDirectory + "/motion.jsonl"))
        // An export of the recording run: up to its last complete line, and it says so.
        let export = d.directory + "/while-recording.csv"
        let report = try CSVExporter().export(try RunSource(directory: run.runDirectory), to: export)
        #expect(report.warnings.contains { $0.contains("still recording") } && report.records > 0, "\(report.warnings)")
        // The recording run is listed as recording.
        #expect(try await client.runs(RunsListParams(status: .recording)).runs.map(\.taskRunUUID) == [run.taskRunUUID])
        // The only run's UUID does not begin with `other`.
        let other = run.taskRunUUID.uuidString.hasPrefix("0") ? "1" : "0"
        #expect(await code { _ = try await client.run(other) } == RPCErrorCode.unknownRun.rawValue)
        for bad in ["", "../../etc", "walk/x", String(repeating: "a", count: 37), "zz"] {
            #expect(await code { _ = try await client.run(bad) } == RPCErrorCode.invalidParams.rawValue, "\(bad)")
            #expect(await code { _ = try await client.deleteRun(bad) } == RPCErrorCode.invalidParams.rawValue, "\(bad)")
        }
        for params in [RunsListParams(limit: 0), RunsListParams(limit: 1001), RunsListParams(offset: -1), RunsListParams(since: "yesterday")] {
            #expect(await code { _ = try await client.runs(params) } == RPCErrorCode.invalidParams.rawValue, "\(params)")
        }
        // Numbers past Int and a status that is not one: the decoder's errors.
        let raw = try RawConnection(socketPath: d.socket)
        for params in [#"{"limit": 1e300}"#, #"{"status": "lost"}"#, #"{"offset": "3"}"#] {
            try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"runs.list","params":\#(params)}"# + "\n")
            let error = try #require(try await raw.response(timeout: 10)?["error"] as? [String: Any])
            #expect(error["code"] as? Int == RPCErrorCode.invalidParams.rawValue, "\(params): \(error)")
        }
        _ = try await run.finishStep("walk/walk")
        _ = try await run.finish()
        #expect(try await client.deleteRun(String(run.taskRunUUID.uuidString.prefix(6))).taskRunUUID == run.taskRunUUID)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func recorderctlListsShowsAndRemovesRuns() async throws {
        let d = try await TestDaemon.inProcess(speed: 4)
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let client = try await d.client()
        let result = try await Self.record(client, task: "walk")
        let summary = try #require(try await client.runs().runs.first)
        let ctl = ChildProcess.executable("recorderctl")
        func recorderctl(_ arguments: [String]) async throws -> (Int32, String) {
            let p = try await ChildProcess(ctl, arguments + ["--socket", d.socket])
            let status = try await p.wait(timeout: 30)
            return (status, p.printed)
        }
        let prefix = String(result.taskRunUUID.uuidString.prefix(8)).lowercased()
        let (listed, list) = try await recorderctl(["runs"])
        #expect(listed == 0 && list.contains(prefix) && list.contains("walk") && list.contains("finished") && list.contains(" \(summary.samples) "), "\(list)")
        let (jsonStatus, json) = try await recorderctl(["runs", "--json"])
        #expect(jsonStatus == 0)
        let decoded = try TaskResult.makeDecoder().decode(RunsListResult.self, from: Data(json.utf8))
        #expect(decoded.runs == [summary])
        let (shown, show) = try await recorderctl(["show", prefix])
        #expect(shown == 0 && show.contains(result.taskRunUUID.uuidString) && show.contains("motion.jsonl") && show.contains("\(summary.samples) samples"), "\(show)")
        // A run directory, read without the daemon: the same summary.
        let local = try await ChildProcess(ctl, ["show", summary.runDirectory, "--json", "--socket", d.directory + "/no-daemon.sock"])
        #expect(try await local.wait(timeout: 30) == 0)
        let details = try TaskResult.makeDecoder().decode(RunDetails.self, from: Data(local.printed.utf8))
        #expect(details.summary == summary && details.taskResult == result)
        let (notRun, notRunText) = try await recorderctl(["show", d.directory])
        #expect(notRun == SysexitStatus.noInput.rawValue && notRunText.contains("not a run directory"), "\(notRunText)")
        let (unknown, unknownText) = try await recorderctl(["show", "ffffffff-0000"])
        #expect(unknown == SysexitStatus.dataError.rawValue && unknownText.contains("no run"), "\(unknownText)")
        // rm by the run's directory: the daemon deletes the run the manifest names.
        let (removed, removedText) = try await recorderctl(["rm", summary.runDirectory])
        #expect(removed == 0 && removedText.contains("deleted \(result.taskRunUUID)"), "\(removedText)")
        #expect(!FileManager.default.fileExists(atPath: summary.runDirectory))
        let (gone, goneText) = try await recorderctl(["rm", prefix])
        #expect(gone == SysexitStatus.dataError.rawValue && goneText.contains("no run"), "\(goneText)")
        let (_, empty) = try await recorderctl(["runs"])
        #expect(empty.contains("no runs"), "\(empty)")
        client.close()
        try await d.stop()
    }
}
