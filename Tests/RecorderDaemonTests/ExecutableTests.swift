import Foundation
import RecorderClient
import RecorderEngine
import RecorderModel
import RecorderConfiguration
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import Testing

@Suite("The recorderd and recorderctl executables", .serialized)
struct ExecutableTests {
    /// The walk as `imu0` and a device whose file is missing.
    func writeConfiguration(in directory: String) throws -> String {
        let broken = DeviceConfiguration(name: "broken", kind: "replay",
                                         json: .object(["name": .string("broken"), "kind": .string("replay"), "file": .string("missing.csv")]))
        var configuration = try TestConfiguration(directory: directory, devices: [Fixtures.replayDevice(), broken])
        configuration.daemon.ringSeconds = 10
        return try configuration.write()
    }

    /// Connects once the daemon listens; fails if it exits first.
    func connect(_ socket: String, _ daemon: ChildProcess) async throws -> RecorderClient {
        try await daemon.connectWhenListening(socket, timeout: 20)
    }

    @Test(.ownThread) func sigtermLeavesCompleteFilesAndAnInterruptedResult() async throws {
        let dir = try Fixtures.temporaryDirectory()
        // --socket and --data-dir override the file.
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", try writeConfiguration(in: dir), "--log-level", "error",
                                                                            "--socket", dir + "/other.sock", "--data-dir", dir + "/other-data"])
        let client = try await connect(dir + "/other.sock", daemon)
        let devices = try await client.devices()
        #expect(devices.first { $0.name == "broken" }?.state == .unavailable)
        let run = try await client.startTask(identifier: "walk", asyncActions: [.motion("motion")])
        #expect(run.runDirectory.hasPrefix(dir + "/other-data/runs/walk/"))
        // Malformed input on another connection while recording: answered, and harmless.
        let raw = try RawConnection(socketPath: dir + "/other.sock")
        for line in ["{oops", "[1]", #"{"jsonrpc":"2.0","id":1,"method":"task.finish","params":{"taskRunUUID":42}}"#,
                     #"{"jsonrpc":"2.0","id":2,"method":"step.finish","params":{"taskRunUUID":"\#(run.taskRunUUID.uuidString)","stepPath":"nope"}}"#] {
            try await raw.send(line + "\n")
            #expect(try await raw.response()?["error"] != nil)
        }
        try await raw.send(Array(repeating: UInt8(ascii: "x"), count: (1 << 20) + 100))
        #expect((try await raw.response()?["error"] as? [String: Any])?["code"] as? Int == RPCErrorCode.requestTooLarge.rawValue)
        try await awaitRecords(client, count: 100)
        #expect(try await daemon.stop(signal: SIGTERM) == 0)
        let result = try TaskResultStore.read(directory: run.runDirectory)
        #expect(result.status == .interrupted)
        let file = try #require(result.asyncResults.first?.file)
        let data = try Data(contentsOf: URL(fileURLWithPath: run.runDirectory + "/motion.jsonl"))
        #expect(data.last == UInt8(ascii: "\n"))
        #expect(file.sha256 == SHA256.hex(data))
        #expect(file.sampleCount == (try Fixtures.records(run.runDirectory + "/motion.jsonl")).filter(\.isSample).count)
        #expect(file.sampleCount >= 200)
        #expect(file.droppedSamples == 0)
        let outcome = ReplayCheck.compare(try Fixtures.records(run.runDirectory + "/motion.jsonl"), rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        #expect(outcome.samples * 2 == file.sampleCount)
        #expect(!FileManager.default.fileExists(atPath: dir + "/other.sock"))
    }

    @Test(.ownThread) func afterKillNineTheNextStartRecoversTheRun() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let config = try writeConfiguration(in: dir)
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", config, "--log-level", "error"])
        let client = try await connect(dir + "/control.sock", daemon)
        let run = try await client.startTask(identifier: "walk", asyncActions: [.motion("motion")])
        try await awaitRecords(client, count: 150)
        try await daemon.stop(signal: SIGKILL)
        #expect(try TaskResultStore.read(directory: run.runDirectory).status == .recording)
        // Simulate the torn last write that power loss can leave.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: run.runDirectory + "/motion.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"uptime":1,"timesta"#.utf8))
        try handle.close()

        let restarted = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", config, "--log-level", "error"])
        let again = try await connect(dir + "/control.sock", restarted)
        let result = try TaskResultStore.read(directory: run.runDirectory)
        #expect(result.status == .interrupted)
        let records = try Fixtures.records(run.runDirectory + "/motion.jsonl")
        let file = try #require(result.asyncResults.first?.file)
        #expect(file.sampleCount == records.filter(\.isSample).count)
        #expect(file.sampleCount >= 100)
        #expect(file.sha256 == SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: run.runDirectory + "/motion.jsonl"))))
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        again.close()
        #expect(try await restarted.stop() == 0)
    }

    @Test(.ownThread) func recorderctlStatusAndTail() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", try writeConfiguration(in: dir), "--log-level", "error"])
        let client = try await connect(dir + "/control.sock", daemon)
        // cairo and the 17 libraries it brings are loaded only when a plot is drawn.
        let maps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/\(daemon.pid)/maps")).readDataToEndOfFile(), as: UTF8.self)
        #expect(maps.contains("libswiftCore") && !maps.contains("libcairo") && !maps.contains("libpixman") && !maps.contains("libX11"))
        let status = try await ChildProcess(ChildProcess.executable("recorderctl"), ["status", "--socket", dir + "/control.sock"])
        #expect(try await status.wait(timeout: 20) == 0)
        let statusText = status.printed
        #expect(statusText.contains("imu0") && statusText.contains("broken") && statusText.contains("unavailable"))
        // No http or mqtt: no services process, and status says none.
        #expect(try await client.status().services == nil)
        #expect(!statusText.contains("recorderd-services"))
        let tail = try await ChildProcess(ChildProcess.executable("recorderctl"), ["tail", "imu0", "--json", "--rate", "20", "--count", "10", "--socket", dir + "/control.sock"])
        #expect(try await tail.wait(timeout: 20) == 0)
        let lines = tail.printed.split(separator: "\n")
        #expect(lines.count == 10)
        let records = try lines.map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        #expect(records.allSatisfy { $0.isSample && ($0.sensorType == "accelerometer" || $0.sensorType == "gyro") })
        let table = try await ChildProcess(ChildProcess.executable("recorderctl"), ["tail", "imu0", "--count", "4", "--socket", dir + "/control.sock"])
        #expect(try await table.wait(timeout: 20) == 0)
        #expect(table.printed.contains("accelerometer"))
        // Fused types live: the attitude with its w and reference frame.
        let fused = try await ChildProcess(ChildProcess.executable("recorderctl"), ["tail", "imu0", "--sensor", "attitude", "--sensor", "gravity",
                                                                              "--count", "6", "--socket", dir + "/control.sock"])
        #expect(try await fused.wait(timeout: 20) == 0)
        let fusedText = fused.printed
        #expect(fusedText.contains("attitude") && fusedText.contains(" w ") && fusedText.contains("Z-Up") && fusedText.contains("gravity"), "\(fusedText)")
        let missing = try await ChildProcess(ChildProcess.executable("recorderctl"), ["tail", "nope", "--socket", dir + "/control.sock"])
        #expect(try await missing.wait(timeout: 20) != 0)
        #expect(missing.printed.contains("no device named"))
        client.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test(.ownThread) func aBadConfigurationIsACleanError() async throws {
        let dir = try Fixtures.temporaryDirectory()
        try #"{"ringSeconds": "long"}"#.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", dir + "/bad.json"])
        #expect(try await daemon.wait(timeout: 15) == 78)
        #expect(daemon.printed.contains("ringSeconds: expected a number"))
    }

    @Test(.ownThread) func recorderctlDemoRunsTheGaitTaskOnReplayedData() async throws {
        let dir = try Fixtures.temporaryDirectory()
        // The demo's own timing (17 s): the walking steps must show the replayed walk's real steps.
        let demo = try await ChildProcess(ChildProcess.executable("recorderctl"), ["demo", "--data-dir", dir + "/data"])
        #expect(try await demo.wait(timeout: 90) == 0)
        let printed = demo.printed
        #expect(printed.contains("task gait-balance finished"))
        #expect(printed.contains("gait: gait-balance/walking.outbound: ") && printed.contains("gait: gait-balance/walking.return: "), "\(printed)")
        #expect(printed.contains("gait: gait-balance/walking.rest: standing, sway RMS"), "\(printed)")
        #expect(printed.contains("file motion.jsonl"))
        let runs = try FileManager.default.contentsOfDirectory(atPath: dir + "/data/runs/gait-balance")
        #expect(runs.count == 1)
        let result = try TaskResultStore.read(directory: dir + "/data/runs/gait-balance/" + runs[0])
        #expect(result.status == .finished)
        #expect(result.stepHistory.map(\.stepPath) == ["instruction", "countdown", "walking.outbound", "walking.return", "walking.rest", "conclusion"].map { "gait-balance/" + $0 })
        let motion = try #require(result.asyncResults.compactMap(\.file).first)
        // From the start of outbound to the end of rest at 100 Hz, two sensor types.
        let span = try #require(result.stepHistory[4].endUptime) - result.stepHistory[2].startUptime
        #expect(span >= 1.5)
        #expect(abs(Double(motion.sampleCount) - span * 200) <= 8)
        #expect(motion.startUptime == result.stepHistory[2].startUptime)
        #expect(motion.endUptime == result.stepHistory[4].endUptime)
        // The gait file's summaries: steps while walking (the replayed bout walks at about 100
        // steps/min), sway while standing.
        let gait = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == "gait" })
        let summaries = try #require(gait.stepSummaries)
        #expect(summaries.map(\.stepPath) == ["walking.outbound", "walking.return", "walking.rest"].map { "gait-balance/" + $0 })
        let walked = summaries.prefix(2).compactMap(\.walking).map(\.stepCount).reduce(0, +)
        #expect(walked >= 8 && summaries[1].activity == .walking, "\(summaries)")
        #expect(abs((summaries[1].walking?.cadence ?? 0) - 100) < 15, "\(summaries)")
        #expect(summaries[2].activity == .standing && summaries[2].sway != nil, "\(summaries)")
        // The replayed participant's sensor height: the walking steps' distance and speed.
        #expect(summaries[1].walking?.walkingSpeed != nil && summaries[1].walking?.distance != nil, "\(summaries)")
        #expect(printed.contains(" m at "), "\(printed)")
        // One answer per step: a step.finish answered provisionally (the walk went on into the
        // next step) is followed by its final summary (a step.summary notification), printed
        // as "(final)", which is the task result's summary of that step.
        // Lines end in "\n" or, a countdown's, in "\r" ("\r\n" is one Character).
        let provisional = printed.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("    gait: ") && $0.hasSuffix(" (provisional)") }
        let finals = printed.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("    gait (final): ") }.map { String($0.dropFirst("    gait (final): ".count)) }
        #expect(finals.count == provisional.count, "\(printed)")
        for final in finals {
            #expect(summaries.map(\.headline).contains(final), "\(final) is not among \(summaries.map(\.headline))")
        }
        // Sent when the analysis settles, not at the run's end: the outbound walk's final summary
        // comes during the return step (2.5 s of data after its last contact), before that
        // step's own summary.
        let lines = printed.split(whereSeparator: \.isNewline).map(String.init)
        let outboundFinal = lines.firstIndex { $0.hasPrefix("    gait (final): gait-balance/walking.outbound") }
        let returnSummary = lines.firstIndex { $0.hasPrefix("    gait: gait-balance/walking.return") }
        #expect(outboundFinal != nil && returnSummary != nil && outboundFinal! < returnSummary!, "\(printed)")
    }

    /// `recorderctl run --body-height/--sensor-height`: out of range, a usage error naming the
    /// range before anything is started.
    @Test(.ownThread) func recorderctlRunRefusesHeightsOutOfRange() async throws {
        let task = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/tasks/gait-balance.json").path
        for (flag, value) in [("--body-height", "175"), ("--sensor-height", "-1"), ("--body-height", "nan")] {
            let ctl = try await ChildProcess(ChildProcess.executable("recorderctl"), ["run", task, "\(flag)=\(value)", "--socket", "/nonexistent/control.sock"])
            #expect(try await ctl.wait(timeout: 20) == 64, "\(flag) \(value): \(ctl.printed)")
            #expect(ctl.printed.contains("\(flag): expected a height in metres"), "\(ctl.printed)")
        }
    }
}
