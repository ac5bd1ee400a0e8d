import Foundation
@testable import RecorderEngine
import RecorderJSON
import RecorderModel
import Testing

/// Heart-rate records and each step's summary, from frames (the sensor through BlueZ is tested in
/// the guest).
@Suite("Heart-rate records and step summaries")
struct HeartRateRecordsTests {
    func records(_ bytes: [UInt8]) throws -> [Record] {
        try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    @Test func everyFieldIsWrittenAsSentAndALiveStreamWritesTheSame() throws {
        let measurement = HeartRateMeasurement(uptime: 12.5, heartRate: 96, contact: true, energyExpended: 4660,
                                               rrIntervals: [640.0 / 1024, 638.0 / 1024, 641.0 / 1024])
        var recording = RecordPipeline(types: [.heartRate], sink: RecordSink(startUptime: 10, stepPath: JSONString("walk")),
                                       options: RecordPipeline.Options(heartRateIdentifier: "hr"))
        var live = RecordPipeline(types: [.heartRate], sink: RecordSink(startUptime: 10, stepPath: nil), options: .live(levelInterval: 0.1))
        for frame in [SensorFrame.heartRate(measurement), .gap(uptime: 30, sensorTypes: [.heartRate], droppedSamples: 16, duration: 17.5),
                      .heartRate(HeartRateMeasurement(uptime: 30, heartRate: 0, contact: false))] {
            recording.add(frame)
            live.add(frame)
        }
        let text = String(decoding: recording.sink.encoder.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"uptime":12.5,"timestamp":2.5,"stepPath":"walk","sensorType":"heartRate","heartRate":96,"unit":"count/min","#
            + #""contact":true,"energyExpended":4660,"rrIntervals":[0.625,0.623046875,0.6259765625]}"#), "\(text)")
        let written = try records(recording.sink.encoder.bytes)
        #expect(written.map { var r = $0; r.stepPath = nil; return r } == (try records(live.sink.encoder.bytes)))
        #expect(written[1].isGap && written[1].duration == 17.5 && written[1].droppedSamples == 16 && written[1].sensorType == "heartRate")
        #expect(written[2].heartRate == 0 && written[2].contact == false && written[2].rrIntervals == nil && written[2].energyExpended == nil)
        let counts = recording.sink.takeCounts()
        #expect(counts.samples == 2 && counts.gaps == 1 && counts.dropped == 16)
    }

    /// A walk, then a rest whose rate falls: each step's mean, range, and the rest's recovery over
    /// its first minute; readings without skin contact apart; the gap counted in its step.
    @Test func eachStepHasItsFiguresAndARestItsRecovery() throws {
        var pipeline = RecordPipeline(types: [.heartRate], sink: RecordSink(startUptime: 100, stepPath: JSONString("walk")),
                                      options: RecordPipeline.Options(heartRateIdentifier: "hr"))
        pipeline.sink.changeStep(JSONString("rest"), uptime: 200, date: Date(timeIntervalSince1970: 1_000))
        // Walking: 100…199 s at 120 + (t mod 3); one reading without contact.
        for t in 100..<200 { pipeline.add(.heartRate(HeartRateMeasurement(uptime: Double(t) + 0.25, heartRate: 120 + t % 3, contact: true))) }
        pipeline.add(.heartRate(HeartRateMeasurement(uptime: 199.5, heartRate: 0, contact: false)))
        // Resting: from 130 falling by 1 a second to 70; the sensor away 10 s at 230.
        for t in 200..<300 where !(230..<240).contains(t) {
            if t == 240 { pipeline.add(.gap(uptime: 240.25, sensorTypes: [.heartRate], droppedSamples: 9, duration: 10)) }
            pipeline.add(.heartRate(HeartRateMeasurement(uptime: Double(t) + 0.25, heartRate: max(70, 130 - (t - 200)))))
        }
        let walk = try #require(pipeline.summaries(ofStep: "walk").first?.heartRate)
        #expect(walk.identifier == "hr" && walk.startUptime == 100 && walk.endUptime == 199.5)
        #expect(walk.count == 100 && walk.withoutContact == 1 && walk.minimum == 120 && walk.maximum == 122)
        #expect(walk.mean == 121 && walk.atStart == 121 && walk.at60Seconds == 121 && walk.recovery == 0)
        let rest = try #require(pipeline.summaries(ofStep: "rest").first?.heartRate)
        #expect(rest.startUptime == 200 && rest.count == 90 && rest.atStart == 130 && rest.at60Seconds == 70 && rest.recovery == 60)
        #expect(rest.gapCount == 1 && rest.gapSeconds == 10 && rest.minimum == 70 && rest.maximum == 130)
        #expect(rest.headline == "rest: heart rate \(Int(rest.mean!.rounded())) mean, 70–130 count/min, recovery 60 in 60 s (1 gap, 10.0 s)")
        var result = FileResult(identifier: "hr", relativePath: "hr.jsonl", startDate: Date(), startUptime: 100, units: [:])
        pipeline.describe(&result)
        #expect(result.heartRateSummaries?.map(\.stepPath) == ["walk", "rest"])
        // A live stream keeps no summaries.
        var live = RecordPipeline(types: [.heartRate], sink: RecordSink(startUptime: 100, stepPath: nil), options: .live(levelInterval: 0.1))
        live.add(.heartRate(HeartRateMeasurement(uptime: 101, heartRate: 80)))
        #expect(live.summaries(ofStep: "walk").isEmpty)
    }
}
