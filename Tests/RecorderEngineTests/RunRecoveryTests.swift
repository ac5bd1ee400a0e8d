import Foundation
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing

@Suite("Crash recovery")
struct RunRecoveryTests {
    @Test func cutsThePartialLineRecountsAndMarksInterrupted() throws {
        let data = try Fixtures.temporaryDirectory()
        let dir = data + "/runs/walk/20260101T000000Z-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var result = TaskResult(taskIdentifier: "walk", taskRunUUID: UUID(), startDate: Date(timeIntervalSince1970: 1_000))
        result.asyncResults = [.file(FileResult(identifier: "motion", relativePath: "motion.jsonl", startDate: Date(timeIntervalSince1970: 1_000),
                                                startUptime: 10, units: ["accelerometer": "g"]))]
        try TaskResultStore.write(result, directory: dir)
        var e = JSONLinesEncoder()
        e.appendMarker(uptime: 10, timestamp: 0, timestampDate: "1970-01-01T00:16:40.000+00:00", stepPath: JSONString("walk"))
        for i in 0..<5 {
            e.appendMotion(uptime: 10 + Double(i) * 0.01, timestamp: Double(i) * 0.01, stepPath: JSONString("walk"), sensorType: .accelerometer, vector: Vector3(x: 1, y: 2, z: 3))
        }
        e.appendGap(uptime: 10.1, timestamp: 0.1, stepPath: JSONString("walk"), sensorType: .accelerometer, droppedSamples: 4)
        e.appendMotion(uptime: 10.2, timestamp: 0.2, stepPath: JSONString("walk"), sensorType: .accelerometer, vector: Vector3(x: 1, y: 2, z: 3))
        let whole = e.bytes
        try Data(whole + Array(#"{"uptime":10.3,"timestamp":0.3,"stepPa"#.utf8)).write(to: URL(fileURLWithPath: dir + "/motion.jsonl"))
        // A file whose recorder started after the last manifest write.
        var late = JSONLinesEncoder()
        late.appendMarker(uptime: 11, timestamp: 0, timestampDate: "1970-01-01T00:16:41.000+00:00", stepPath: JSONString("walk"))
        late.appendMotion(uptime: 11.01, timestamp: 0.01, stepPath: JSONString("walk"), sensorType: .gyro, vector: Vector3(x: 0, y: 0, z: 0))
        try Data(late.bytes).write(to: URL(fileURLWithPath: dir + "/late.jsonl"))

        #expect(RunRecovery.recover(dataDirectory: data, logger: Fixtures.logger) == [dir])
        let recovered = try TaskResultStore.read(directory: dir)
        #expect(recovered.status == .interrupted)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/motion.jsonl"))
        #expect(Array(bytes) == whole)
        let file = try #require(recovered.asyncResults.compactMap(\.file).first { $0.identifier == "motion" })
        #expect(file.sampleCount == 6)
        #expect(file.droppedSamples == 4 && file.gapCount == 1)
        #expect(file.sha256 == SHA256.hex(whole))
        #expect(file.endUptime == 10.2)
        let lateFile = try #require(recovered.asyncResults.compactMap(\.file).first { $0.identifier == "late" })
        #expect(lateFile.sampleCount == 1 && lateFile.startUptime == 11)
        // Recovering again changes nothing: the run is no longer `recording`.
        #expect(RunRecovery.recover(dataDirectory: data, logger: Fixtures.logger).isEmpty)
    }
}
