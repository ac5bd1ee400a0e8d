import Foundation
@testable import GaitAnalysis
@testable import RecorderEngine
import RecorderModel
import Testing

/// The producer on its own, with a sink of the engine's (no device, no file).
@Suite("Gait records")
struct GaitRecordsTests {
    /// A synthetic walk (as `GaitTrackerTests`) on a device without a gyroscope (gravity from the
    /// low-passed accelerometer), lying on its side (x horizontal, z up), with readings that are
    /// not numbers in the middle: the steps on both sides are found, as step records in time
    /// order, and the summary counts them.
    @Test func notANumberIsLeftOutAndTheWalkAroundItCounts() throws {
        var records = GaitRecords(identifier: "gait", rate: 100, sensorLocation: .lowerBack)
        var sink = RecordSink(startUptime: 0, stepPath: JSONString("walk"))
        for i in 0..<1600 {
            let t = Double(i) / 100
            var z = 1 + GaitTrackerTests.walkSignal(t, strikesFrom: 2, to: 14)
            if i >= 700 && i < 705 { z = .nan }
            records.add(.motion(MotionFrame(uptime: t, accelerometer: Vector3(x: 0.01, y: 0, z: z))), to: &sink)
        }
        records.finish(to: &sink)
        let lines = String(decoding: sink.encoder.bytes, as: UTF8.self).split(separator: "\n")
        let steps = lines.filter { $0.contains(#""event":"step""#) }
        // Strikes every 0.55 s from 2 s to 14 s: 22.
        #expect(steps.count >= 20 && steps.count <= 23, "\(steps.count) steps")
        let uptimes = steps.compactMap { line -> Double? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["uptime"] as? Double
        }
        #expect(uptimes == uptimes.sorted())
        #expect(uptimes.contains { $0 > 7.5 } && uptimes.contains { $0 < 6.5 })
        let summary = try #require(records.summaries.first)
        #expect(summary.activity == .walking && (summary.walking?.stepCount ?? 0) >= 19, "\(summary)")
        #expect(summary.turns == nil)
    }
}
