import Foundation
import RecorderClient
@testable import RecorderExport
import RecorderModel
import RecorderTestSupport
import Testing

/// `mcap` exports read by Foxglove's own reader (PyPI `mcap` with `zstandard`, Tests/Tools/
/// check_mcap.py): CRCs validated, every message decoded, counts per channel equal to the JSON
/// lines', log times non-decreasing per channel, the summary's statistics and indexes right.
@Suite("MCAP export", .timeLimit(.minutes(3)))
struct MCAPExportTests {
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The messages each topic must hold: the records of the run's files by sensor type, gaps
    /// and errors as events, two per step (start, end).
    static func expectedTopics(_ result: TaskResult, directory: String) throws -> [String: Int] {
        var topics: [String: Int] = [:]
        let files = result.asyncResults.compactMap(\.file).filter { $0.relativePath.hasSuffix(".jsonl") }
        for file in files {
            // One recorder per device here: `/<device>/<sensorType>`; the events topic is the
            // recorder's own when another recorder uses the device.
            let device = file.device ?? file.identifier
            let shared = files.contains { $0.identifier != file.identifier && $0.device == file.device }
            for r in try Fixtures.records(directory + "/" + file.relativePath) where !r.isMarker {
                let isEvent = r.event == "gap" || r.event == "error" || r.sensorType == nil
                let topic = isEvent ? (shared ? "/\(device)/\(file.identifier)/events" : "/\(device)/events") : "/\(device)/\(r.sensorType!)"
                topics[topic, default: 0] += 1
            }
        }
        let steps = result.stepHistory.reduce(0) { $0 + 1 + ($1.endUptime == nil ? 0 : 1) }
        if steps > 0 { topics["/steps"] = steps }
        return topics
    }

    @Test(.ownThread) func aRunWithMotionAndGaitReadsBackInFoxglovesReader() async throws {
        // Gait needs the walk at its real pace: speed 1, 9 s of it (the walk starts at 4.5 s). The
        // replay loops: on a loaded machine the waits below can outlast the file's 12.5 s.
        let d = try await TestDaemon.inProcess(speed: 1)
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let client = try await d.client()
        let (result, runDirectory) = try await recordSteps(client, task: "walk", actions: [
            .motion("motion", startStepIdentifier: "stand", stopStepIdentifier: "walk"),
            AsyncActionConfiguration(identifier: "gait", startStepIdentifier: "stand", stopStepIdentifier: "walk", options: .gait(GaitOptions())),
        ], steps: [("stand", 300), ("walk", 600)])
        client.close()
        try await d.stop()

        let output = d.directory + "/walk.mcap"
        let report = try MCAPExporter().export(try RunSource(directory: runDirectory), to: output)
        #expect(report.files == [output] && report.warnings.isEmpty)
        let check = try await MCAPCheck.run(output)
        let expected = try Self.expectedTopics(result, directory: runDirectory)
        #expect(check.topics == expected)
        #expect(expected["/imu0/accelerometer", default: 0] > 800 && expected["/imu0/gyro", default: 0] > 800)
        #expect(expected["/imu0/step", default: 0] > 0, "the gait recorder's steps: \(expected)")
        #expect(check.decreasing.isEmpty, "\(check.decreasing)")
        #expect(check.statistics.messageCount == expected.values.reduce(0, +) && check.indexedMessages == check.statistics.messageCount)
        #expect(check.statistics.channelMessageCounts == expected && check.statistics.channelCount == expected.count)
        #expect(check.statistics.chunkCount == check.chunkIndexes && check.chunkIndexes >= 1 && check.compression == ["zstd"])
        #expect(check.dataSectionCrc != 0 && check.summaryCrc != 0)
        #expect(check.schemas["/imu0/accelerometer"] == "recorderd.accelerometer" && check.encodings["/imu0/accelerometer"] == "json")
        // log_time is the wall clock of the run: within its start and end dates.
        let start = UInt64(result.startDate.timeIntervalSince1970 * 1e9), end = UInt64(result.endDate!.timeIntervalSince1970 * 1e9)
        #expect(check.statistics.start + 50_000_000 >= start && check.statistics.end <= end + 50_000_000,
                "\(check.statistics.start)…\(check.statistics.end) vs \(start)…\(end)")
    }

    @Test(.ownThread) func aRunWithGapsKeepsEveryGapAsAnEvent() async throws {
        // A ring of 64 frames and a 20 kHz replay: the writer cannot keep up, and gap records say
        // how many samples were lost.
        let d = try await TestDaemon.inProcess(speed: 200, ringSeconds: 0.001)
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let client = try await d.client()
        let run = try await client.startTask(identifier: "fast", asyncActions: [.motion("m")])
        try await awaitRecords(client, count: 20_000)
        let result = try await run.finish()
        client.close()
        try await d.stop()
        let path = run.runDirectory + "/m.jsonl"
        // Chunks of 16 KiB: several of them whatever share of the replay this build kept.
        try #require(Self.size(path) > 4 << 14, "\(Self.size(path)) bytes recorded: too few for several chunks")
        let gaps = try Fixtures.records(path).filter(\.isGap).count
        try #require(gaps > 0, "no gaps: the test proves nothing")

        let output = d.directory + "/fast.mcap"
        _ = try MCAPExporter(chunkSize: 1 << 14).export(try RunSource(directory: run.runDirectory), to: output)
        let check = try await MCAPCheck.run(output)
        #expect(check.topics == (try Self.expectedTopics(result, directory: run.runDirectory)))
        #expect(check.topics["/imu0/events"] == gaps)
        #expect(check.decreasing.isEmpty && check.indexedMessages == check.statistics.messageCount)
        #expect(check.chunkIndexes > 1 && check.statistics.chunkCount == check.chunkIndexes, "several chunks of 16 KiB")
        // Never over an existing file, never into the run.
        #expect(throws: ExportError.self) { try MCAPExporter().export(try RunSource(directory: run.runDirectory), to: output) }
        #expect(throws: ExportError.self) { try MCAPExporter().export(try RunSource(directory: run.runDirectory), to: run.runDirectory + "/x.mcap") }
    }
}
