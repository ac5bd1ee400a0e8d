import Foundation
import Logging
@testable import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Testing
import RecorderConfiguration
import RecorderJSON
import RecorderProtocol
import RecorderRuntime
import ReplaySensors

@Suite("Task runs over a replay device")
struct RecordingTests {
    struct Setup {
        let data: String
        let devices: DeviceRegistry
        let runs: TaskRunRegistry
    }

    func setup(speed: Double = 1, ringSeconds: Double = 30, clock: any RecorderClock = SystemClock(), file: String = Fixtures.shortWalk) throws -> Setup {
        let data = try Fixtures.temporaryDirectory()
        var configuration = DaemonConfiguration()
        configuration.ringSeconds = ringSeconds
        configuration.devices = [Fixtures.replayDevice(file: file, speed: speed)]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 1)
        return Setup(data: data, devices: devices,
                     runs: TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: ringSeconds, clock: clock, logger: Fixtures.logger))
    }

    /// A task run whose one motion recorder ("m") records the replay until `frames` frames were
    /// delivered; its start and its file result.
    func recordMotion(speed: Double, ringSeconds: Double, frames: Int) async throws -> (start: StartedTaskRun, file: FileResult) {
        let s = try setup(speed: speed, ringSeconds: ringSeconds)
        let start = try await s.runs.start(taskIdentifier: "motion", asyncActions: [.motion("m")])
        try await Fixtures.waitForFrames(try s.devices.device(named: "imu0"), frames)
        let result = try await s.runs.finish(start.taskRunUUID)
        return (start, try #require(result.asyncResults.first?.file))
    }

    @Test(.ownThread) func recordsTheReplayedSamplesExactlyWithStepMarkers() async throws {
        let s = try setup(speed: 4)
        let start = try await s.runs.start(taskIdentifier: "walk", asyncActions: [
            .motion("motion", startStepIdentifier: "walking.outbound", stopStepIdentifier: "walking.return"),
        ])
        #expect(start.runDirectory.hasPrefix(s.data + "/runs/walk/"))
        #expect(start.runDirectory.hasSuffix("-" + start.taskRunUUID.uuidString))
        let device = try s.devices.device(named: "imu0")
        #expect(device.info.state == .available)
        let started = try await s.runs.startStep(start.taskRunUUID, path: "walk/walking.outbound")
        #expect(started.startedRecorders == ["motion"])
        #expect(device.info.state == .sampling)
        try await Fixtures.waitForFrames(device, 200)
        _ = try await s.runs.finishStep(start.taskRunUUID, path: "walk/walking.outbound")
        _ = try await s.runs.startStep(start.taskRunUUID, path: "walk/walking.return")
        try await Fixtures.waitForFrames(device, 200)
        let stopped = try await s.runs.finishStep(start.taskRunUUID, path: "walk/walking.return")
        #expect(stopped.stoppedRecorders == ["motion"])
        let result = try await s.runs.finish(start.taskRunUUID)
        #expect(device.info.state == .available)

        #expect(result.status == .finished)
        #expect(result.stepHistory.map(\.stepPath) == ["walk/walking.outbound", "walk/walking.return"])
        let file = try #require(result.asyncResults.first?.file)
        let records = try Fixtures.records(start.runDirectory + "/motion.jsonl")
        let samples = records.filter(\.isSample)
        #expect(file.sampleCount == samples.count)
        #expect(samples.count >= 800)
        #expect(Set(samples.map(\.sensorType)) == ["accelerometer", "gyro"])
        #expect(file.units == ["accelerometer": "g", "gyro": "rad/s"])
        #expect(file.frequency == 400)
        #expect(file.droppedSamples == 0 && file.gapCount == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: start.runDirectory + "/motion.jsonl"))
        #expect(file.sha256 == SHA256.hex(bytes))

        // Markers: the first line, then one at each step change inside the recording.
        #expect(records[0].isMarker && records[0].timestamp == 0 && records[0].stepPath == "walk/walking.outbound")
        #expect(records.filter(\.isMarker).map(\.stepPath) == ["walk/walking.outbound", "walk", "walk/walking.return"])
        // Every record lies inside the recorder's window and carries the step it was measured in.
        let steps = result.stepHistory
        for r in samples {
            let u = try #require(r.uptime)
            #expect(u >= file.startUptime && u <= file.endUptime!)
            #expect(abs(r.timestamp! - (u - file.startUptime)) < 1e-9)
            if u >= steps[1].startUptime { #expect(r.stepPath == "walk/walking.return") }
            if u < steps[0].endUptime! { #expect(r.stepPath == "walk/walking.outbound") }
        }
        // Sample for sample against the CSV.
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        #expect(outcome.samples == samples.count / 2)
        // The manifest on disk is the returned result.
        let stored = try TaskResult.makeDecoder().decode(TaskResult.self, from: TaskResult.makeEncoder().encode(result))
        #expect(try TaskResultStore.read(directory: start.runDirectory) == stored)
    }

    @Test(.ownThread) func preRollIncludesSamplesBeforeTheStartStep() async throws {
        let s = try setup(speed: 2)
        let start = try await s.runs.start(taskIdentifier: "balance", asyncActions: [
            .motion("m", startStepIdentifier: "stand", options: MotionOptions(preRollSeconds: 0.5)),
        ])
        let device = try s.devices.device(named: "imu0")
        #expect(device.info.state == .sampling)
        try await Fixtures.waitForFrames(device, 300)
        _ = try await s.runs.startStep(start.taskRunUUID, path: "balance/stand")
        try await Fixtures.waitForFrames(device, 50)
        let result = try await s.runs.finish(start.taskRunUUID)
        let records = try Fixtures.records(start.runDirectory + "/m.jsonl").filter(\.isSample)
        let negative = records.filter { $0.timestamp! < 0 }
        // 0.5 s at 200 Hz, two sensor types.
        #expect(negative.count >= 190 && negative.count <= 202)
        #expect(negative.allSatisfy { $0.timestamp! >= -0.5 })
        #expect(result.asyncResults.first?.file?.sampleCount == records.count)
    }

    @Test(.ownThread) func aSlowRecordingGetsGapRecordsThatAccountForEveryLostSample() async throws {
        // A ring of 64 frames and a 20 kHz replay: the writer cannot keep up.
        let (start, file) = try await recordMotion(speed: 200, ringSeconds: 0.001, frames: 20_000)
        let records = try Fixtures.records(start.runDirectory + "/m.jsonl")
        let gaps = records.filter(\.isGap)
        #expect(!gaps.isEmpty)
        #expect(file.gapCount == gaps.count)
        #expect(file.droppedSamples == gaps.reduce(0) { $0 + $1.droppedSamples! })
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        #expect(outcome.dropped * 2 == file.droppedSamples)
    }

    @Test(.ownThread) func aRingShorterThanTheDrainIntervalIsDrainedBeforeItWraps() async throws {
        // 0.2 s of ring at 400 Hz (80 frames): drained every 0.25 s, it would wrap before every
        // drain and lose ~0.05 s each time: four gaps a second, a fifth of the samples. Drained
        // every quarter of its span, nothing is lost — unless the machine stalls the recorder's
        // queue for longer than the whole ring: the parallel suite's stalls (seen: 22 gaps in 44 s,
        // a quarter of the samples, each gap half a second) are few and long. So the bound is on
        // the gaps' rate, which tells the two apart: at most one a second; every loss a gap.
        #expect(Recording.drainInterval(ringSpan: 0.2) == 0.05)
        #expect(Recording.drainInterval(ringSpan: 30) == Recording.drainInterval)
        #expect(Recording.drainInterval(ringSpan: .infinity) == Recording.drainInterval)
        #expect(Recording.drainInterval(ringSpan: 0) == Recording.drainInterval)
        #expect(Recording.drainInterval(ringSpan: 64.0 / 20_000) == Recording.shortestDrainInterval)
        let (_, file) = try await recordMotion(speed: 4, ringSeconds: 0.2, frames: 600)
        let dropped = file.droppedSamples
        print("small ring: \(file.sampleCount) samples kept, \(dropped) dropped in \(file.gapCount) gaps")
        let seconds = Double(file.sampleCount + dropped) / 400
        #expect(Double(file.gapCount) <= seconds, "\(file.gapCount) gaps in \(seconds) s: \(dropped) of \(file.sampleCount + dropped) samples dropped")
        #expect(dropped == 0 || file.gapCount > 0)
        #expect(file.sampleCount >= 1000, "\(file.sampleCount)")
    }

    @Test(.ownThread) func missingSensorsAndDevicesBecomeErrorResults() async throws {
        let s = try setup()
        let start = try await s.runs.start(taskIdentifier: "t", asyncActions: [
            .motion("m", options: MotionOptions(recorderTypes: [.accelerometer, .magnetometer])),
            .motion("other", device: "imu9"),
            AsyncActionConfiguration(identifier: "gps", options: .distance(DistanceOptions())),
        ])
        #expect(start.errors.map(\.identifier) == ["m_error", "other_error", "gps_error"])
        #expect(start.errors[0].errorDescription == "device \"imu0\" has no magnetometer")
        #expect(start.errors[1].errorDescription == "no device named \"imu9\" is configured")
        let result = try await s.runs.finish(start.taskRunUUID)
        #expect(result.asyncResults.compactMap(\.file).map(\.identifier) == ["m"])
        #expect(result.asyncResults.compactMap(\.file).first?.units == ["accelerometer": "g"])
    }

    @Test(.ownThread) func invalidRunsAreRefusedWithClearErrors() async throws {
        let s = try setup()
        await #expect(throws: TaskRunError.invalidConfiguration("taskIdentifier: invalid identifier \"../../etc\": expected \(RecorderIdentifier.expectation)")) {
            _ = try await s.runs.start(taskIdentifier: "../../etc", asyncActions: [])
        }
        await #expect(throws: TaskRunError.invalidConfiguration("asyncActions[1].identifier: \"m\" is used twice in this task run")) {
            _ = try await s.runs.start(taskIdentifier: "t", asyncActions: [.motion("m"), .motion("m")])
        }
        let uuid = UUID()
        await #expect(throws: TaskRunError.unknownTaskRun(uuid.uuidString)) { _ = try await s.runs.finish(uuid) }
        let run = try await s.runs.start(taskIdentifier: "t", taskRunUUID: uuid, asyncActions: [])
        await #expect(throws: TaskRunError.duplicateTaskRun(uuid.uuidString)) {
            _ = try await s.runs.start(taskIdentifier: "t", taskRunUUID: uuid, asyncActions: [])
        }
        await #expect(throws: TaskRunError.self) { _ = try await s.runs.finishStep(uuid, path: "t/x") }
        _ = try await s.runs.finish(run.taskRunUUID)
    }

    @Test(.ownThread) func cancelDeletesTheFilesUnlessKept() async throws {
        let s = try setup()
        let a = try await s.runs.start(taskIdentifier: "t", asyncActions: [.motion("m")])
        let b = try await s.runs.start(taskIdentifier: "t", asyncActions: [.motion("m")])
        let ra = try await s.runs.cancel(a.taskRunUUID, keepFiles: false)
        let rb = try await s.runs.cancel(b.taskRunUUID, keepFiles: true)
        #expect(ra.status == .cancelled && rb.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: a.runDirectory))
        #expect(try TaskResultStore.read(directory: b.runDirectory).status == .cancelled)
        #expect(FileManager.default.fileExists(atPath: b.runDirectory + "/m.jsonl"))
    }

    @Test(.ownThread) func idleRunsAreAbandonedAfterTheOrphanTimeout() async throws {
        let clock = ManualClock()
        let s = try setup(clock: clock)
        let idle = try await s.runs.start(taskIdentifier: "t", asyncActions: [])
        clock.offset += 300
        let busy = try await s.runs.start(taskIdentifier: "t", asyncActions: [])
        #expect(await s.runs.sweepOrphans(timeout: 600).isEmpty)
        clock.offset += 301
        _ = try await s.runs.startStep(busy.taskRunUUID, path: "t/a")
        #expect(await s.runs.sweepOrphans(timeout: 600) == [idle.taskRunUUID])
        #expect(try TaskResultStore.read(directory: idle.runDirectory).status == .abandoned)
        #expect(s.runs.active().map(\.taskRunUUID) == [busy.taskRunUUID])
        await s.runs.interruptAll()
        #expect(try TaskResultStore.read(directory: busy.runDirectory).status == .interrupted)
        await #expect(throws: TaskRunError.shuttingDown) { _ = try await s.runs.start(taskIdentifier: "t", asyncActions: []) }
    }

    @Test(.ownThread) func aDeviceUnavailableAtTaskStartIsTriedAgainAtTheStartStep() async throws {
        let dir = try Fixtures.temporaryDirectory()
        var configuration = DaemonConfiguration()
        configuration.devices = [Fixtures.replayDevice(file: dir + "/later.csv", speed: 4)]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 0)
        let runs = TaskRunRegistry(dataDirectory: dir + "/data", devices: devices, ringSeconds: 30, logger: Fixtures.logger)
        let start = try await runs.start(taskIdentifier: "t", asyncActions: [
            .motion("late", startStepIdentifier: "walk"),
            .motion("never", startStepIdentifier: "walk", device: "imu0", options: MotionOptions(recorderTypes: [.magnetometer])),
        ])
        #expect(start.errors.isEmpty)
        try FileManager.default.copyItem(atPath: Fixtures.shortWalk, toPath: dir + "/later.csv")
        let step = try await runs.startStep(start.taskRunUUID, path: "t/walk")
        #expect(step.startedRecorders == ["late"])
        try await Fixtures.waitForFrames(try devices.device(named: "imu0"), 100)
        let result = try await runs.finish(start.taskRunUUID)
        #expect(result.asyncResults.compactMap(\.file).map(\.identifier) == ["late"])
        #expect(result.asyncResults.compactMap(\.error).map(\.errorDescription) == ["device \"imu0\" has no magnetometer"])
        #expect((result.asyncResults.compactMap(\.file).first?.sampleCount ?? 0) > 0)
    }

    @Test func replayLoadsCSVAndJSONLinesAndRejectsBadFiles() throws {
        let configuration = try Fixtures.replayDevice().json.decode(ReplayConfiguration.self)
        let csv = try ReplayData.load(path: Fixtures.shortWalk, configuration: configuration)
        #expect(csv.frames.count == 1246)
        #expect(csv.sensorTypes == [.accelerometer, .gyro])
        #expect(csv.frames[0].accelerometer == Vector3(x: 0.9548392163990763, y: -0.15229248609871882, z: -0.09066828215547612))
        let dir = try Fixtures.temporaryDirectory()
        let jsonl = dir + "/r.jsonl"
        try """
        {"uptime":1,"timestamp":0,"timestampDate":"2026-01-01T00:00:00.000+00:00","stepPath":"t"}
        {"uptime":1.01,"timestamp":0.01,"stepPath":"t","sensorType":"accelerometer","x":1,"y":2,"z":3}
        {"uptime":1.01,"timestamp":0.01,"stepPath":"t","sensorType":"gyro","x":4,"y":5,"z":6}
        {"uptime":1.02,"timestamp":0.02,"stepPath":"t","sensorType":"accelerometer","x":7,"y":8,"z":9}
        {"uptime":1.02,"timestamp":0.02,"stepPath":"t","sensorType":"gyro","x":1,"y":1,"z":1}
        """.write(toFile: jsonl, atomically: true, encoding: .utf8)
        let replayed = try ReplayData.load(path: jsonl, configuration: configuration)
        #expect(replayed.frames.count == 2)
        #expect(replayed.frames[1].accelerometer == Vector3(x: 7, y: 8, z: 9))
        #expect(abs(replayed.fileRate! - 100) < 1e-6)
        #expect(throws: ReplayData.LoadError.self) { try ReplayData.load(path: dir + "/missing.csv", configuration: configuration) }
    }

    /// The CSV reader (bytes, exact number conversion) against the C library's `strtod` on
    /// every value of the example configuration's 1.7 MB walk: the same Doubles, row for row.
    @Test func replayCSVValuesAreWhatStrtodReads() throws {
        let file = Fixtures.root + "/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv"
        let configuration = try Fixtures.replayDevice(file: file).json.decode(ReplayConfiguration.self)
        let loaded = try ReplayData.load(path: file, configuration: configuration)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let rows = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = rows[0]
        #expect(loaded.frames.count == rows.count - 1)
        func column(_ name: String) throws -> Int { try #require(header.firstIndex(of: name)) }
        let acc = try configuration.columns[.accelerometer]!.map(column)
        let gyro = try configuration.columns[.gyro]!.map(column)
        let (fa, fg) = (configuration.factor(for: .accelerometer), configuration.factor(for: .gyro))
        var mismatches = 0
        for (frame, row) in zip(loaded.frames, rows.dropFirst()) {
            let a = acc.map { strtod(row[$0], nil) * fa }, g = gyro.map { strtod(row[$0], nil) * fg }
            if frame.accelerometer != Vector3(x: a[0], y: a[1], z: a[2]) || frame.gyro != Vector3(x: g[0], y: g[1], z: g[2]) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// Line ends, blank lines, padding and number forms a CSV may have; rows that cannot be read
    /// are refused with their line number.
    @Test func replayCSVReadsItsVariantsAndRefusesBadRowsByLine() throws {
        let configuration = try Fixtures.replayDevice().json.decode(ReplayConfiguration.self)
        let factor = configuration.factor(for: .accelerometer)
        let dir = try Fixtures.temporaryDirectory()
        func load(_ body: String) throws(ReplayData.LoadError) -> ReplayData {
            let path = dir + "/r.csv"
            try! ("samples, acc_x ,acc_y,acc_z,gyr_x,gyr_y,gyr_z,extra\r\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
            return try ReplayData.load(path: path, configuration: configuration)
        }
        let data = try load("0,1, 2 ,\t3,0,0,0,x\r\n\r\n1,+1,.5,1e2,0,0,0,\n2,-0,0.25,-1.5E-1,1,2,3")
        #expect(data.frames.count == 3)
        #expect(data.frames[0].accelerometer == Vector3(x: 1 * factor, y: 2 * factor, z: 3 * factor))
        #expect(data.frames[1].accelerometer == Vector3(x: 1 * factor, y: 0.5 * factor, z: 100 * factor))
        #expect(data.frames[2].accelerometer == Vector3(x: -0.0 * factor, y: 0.25 * factor, z: -0.15 * factor))
        for (body, line) in [("0,1,2,3,0,0,0\n1,nan,0,0,0,0,0", 3), ("0,1,2,3,0,0,0\n\n1,1,2,inf,0,0,0", 4),
                             ("0,1,2,3,0,0", 2), ("0,1,2,,0,0,0", 2), ("0,1,2,3,0,0,1e400", 2)] {
            do {
                _ = try load(body)
                Issue.record("accepted \(body.debugDescription)")
            } catch {
                #expect(error.description.contains("r.csv:\(line):"), "\(error)")
            }
        }
        // One column may feed several axes (every one of them gets its value).
        guard case .object(var members) = Fixtures.replayDevice().json else { Issue.record("not an object"); return }
        members["columns"] = .object(["accelerometer": .array([.string("acc_x"), .string("acc_x"), .string("acc_z")]),
                                      "gyro": .array([.string("acc_x"), .string("gyr_y"), .string("gyr_z")])])
        let shared = try JSONValue.object(members).decode(ReplayConfiguration.self)
        try "acc_x,acc_z,gyr_y,gyr_z\n2,3,4,5\n".write(toFile: dir + "/shared.csv", atomically: true, encoding: .utf8)
        let sharedData = try ReplayData.load(path: dir + "/shared.csv", configuration: shared)
        #expect(sharedData.frames[0].accelerometer == Vector3(x: 2 * factor, y: 2 * factor, z: 3 * factor))
        #expect(sharedData.frames[0].gyro?.x == 2 * shared.factor(for: .gyro))
        let invalid = dir + "/bad.csv"
        try Data([0x61, 0x2C, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: invalid))
        #expect(throws: ReplayData.LoadError.self) { try ReplayData.load(path: invalid, configuration: configuration) }
    }

    /// A replay device's `mountMatrix` turns every vector into the device's axes.
    @Test func replayAppliesItsMountMatrix() throws {
        let plain = try Fixtures.replayDevice().json.decode(ReplayConfiguration.self)
        guard case .object(var members) = Fixtures.replayDevice().json else {
            Issue.record("not an object")
            return
        }
        members["mountMatrix"] = .array([.array([.number(0), .number(0), .number(1)]), .array([.number(0), .number(1), .number(0)]),
                                         .array([.number(-1), .number(0), .number(0)])])
        let mounted = try JSONValue.object(members).decode(ReplayConfiguration.self)
        let a = try ReplayData.load(path: Fixtures.shortWalk, configuration: plain).frames
        let b = try ReplayData.load(path: Fixtures.shortWalk, configuration: mounted).frames
        #expect(a.count == b.count)
        for (p, m) in zip(a, b) {
            #expect(m.accelerometer == Vector3(x: p.accelerometer!.z, y: p.accelerometer!.y, z: -p.accelerometer!.x))
            #expect(m.gyro == Vector3(x: p.gyro!.z, y: p.gyro!.y, z: -p.gyro!.x))
        }
    }

    @Test func anUnavailableDeviceIsReportedAndRecoversWhenItsFileAppears() throws {
        let dir = try Fixtures.temporaryDirectory()
        var configuration = DaemonConfiguration()
        configuration.devices = [Fixtures.replayDevice(file: dir + "/later.csv")]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 0)
        let info = try devices.device(named: "imu0").info
        #expect(info.state == .unavailable)
        #expect(info.error?.contains("later.csv") == true)
        #expect(throws: DeviceError.self) { _ = try devices.device(named: "imu0").acquire() }
        try FileManager.default.copyItem(atPath: Fixtures.shortWalk, toPath: dir + "/later.csv")
        #expect(devices.probeAll() == 1)
        #expect(try devices.device(named: "imu0").info.state == .available)
    }
}
