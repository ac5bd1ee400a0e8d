import Foundation
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import Testing

/// A microphone's levels carry no `sensorType` (SageResearch's record): the CSV's table takes its
/// rows from the `soundLevel` kind all the same, and its gaps and discarded spans go to the
/// events table; in MCAP the levels have a channel of their own and the spans are events.
@Suite("Sound levels in the exports")
struct CSVLevelsTests {
    static func makeRun() throws -> String {
        let directory = try Fixtures.temporaryDirectory() + "/run"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        var e = JSONLinesEncoder()
        let path = JSONString("voice/phonation")
        e.appendMarker(uptime: 10, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: start), stepPath: path)
        e.appendSoundLevel(SoundLevel(uptime: 10.1, timeInterval: 0.1, average: -42.5, peak: -20), timestamp: 0.1, stepPath: path)
        e.appendDiscarded(uptime: 10.15, timestamp: 0.15, stepPath: path, sensorType: .soundLevel, count: 480, duration: 0.01)
        e.appendSoundLevel(SoundLevel(uptime: 10.2, timeInterval: 0.1, average: -160, peak: -160), timestamp: 0.2, stepPath: path)
        e.appendGap(uptime: 10.3, timestamp: 0.3, stepPath: path, sensorType: .soundLevel, droppedSamples: 960, duration: 0.02)
        try Data(e.bytes).write(to: URL(fileURLWithPath: directory + "/audio.jsonl"))
        var result = TaskResult(taskIdentifier: "voice", taskRunUUID: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, startDate: start,
                                status: .finished)
        result.endDate = start.addingTimeInterval(1)
        var file = FileResult(identifier: "audio", relativePath: "audio.jsonl", device: "mic0", startDate: start, startUptime: 10,
                              units: ["soundLevel": "dBFS"])
        file.sampleCount = 2
        result.asyncResults = [.file(file)]
        try TaskResult.makeEncoder(pretty: true).encode(result).write(to: URL(fileURLWithPath: directory + "/taskResult.json"))
        return directory
    }

    @Test func levelsAreTheTablesRowsAndSpansAreEvents() throws {
        let run = try Self.makeRun()
        let output = (run as NSString).deletingLastPathComponent + "/csv"
        _ = try CSVExporter().export(try RunSource(directory: run), to: output)
        let table = try String(contentsOfFile: output + "/audio.csv", encoding: .utf8).split(separator: "\n")
        #expect(table.first == "time,uptime,stepPath,timeInterval,average,peak")
        #expect(table.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).suffix(3).joined(separator: ",") } == ["0.1,-42.5,-20", "0.1,-160,-160"])
        let events = try String(contentsOfFile: output + "/audio.events.csv", encoding: .utf8)
        #expect(events.contains(",marker,") && events.contains(",discarded,soundLevel,480,0.01,") && events.contains(",gap,soundLevel,960,0.02,"), "\(events)")
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func levelsHaveAnMCAPChannelOfTheirOwn() async throws {
        let run = try Self.makeRun()
        let output = (run as NSString).deletingLastPathComponent + "/run.mcap"
        _ = try MCAPExporter().export(try RunSource(directory: run), to: output)
        let check = try await MCAPCheck.run(output)
        #expect(check.topics["/mic0/soundLevel"] == 2 && check.topics["/mic0/events"] == 2, "\(check.topics)")
        #expect(check.first["/mic0/soundLevel"]?["average"] as? Double == -42.5)
    }
}
