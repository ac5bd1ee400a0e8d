import Foundation
import GaitAnalysis
import RecorderModel
import RecorderTestSupport
import Testing

/// recorderd's turns on the real recordings against Mobilise-D's turning detector (mobgap 1.2.0's
/// `TdElGohary`, the same El-Gohary method: `Benchmarks/gait/mobgap_turns.py`, its output kept in
/// `mobgap_turns.json`). The shared data has no reference for turns, so this is agreement with
/// a peer, not accuracy. The two differ by design: mobgap low-passes at 0.5 Hz the rate about the
/// sensor's own vertical axis, recorderd at 1.5 Hz the rate about fused vertical (any
/// orientation), so recorderd splits some of mobgap's long turns and finds short ones mobgap's
/// slower filter flattens.
@Suite("Turns against mobgap's turning detector")
struct TurnAgreementTests {
    struct PeerTurn: Decodable {
        var start: Double
        var end: Double
        var angle: Double
    }

    /// recorderd's turns of a trial, as the gait analysis finds them (fused yaw rate).
    static func turns(_ trial: String) throws -> [Turn] {
        var detector = TurnDetector(rate: 100)
        return InitialContactAccuracyTests.fused(try Fixtures.rows(Fixtures.root + "/imu/mobgap/\(trial).csv")).compactMap {
            detector.add(uptime: $0.uptime, yawRate: $0.yawRate)
        }
    }

    /// Over the daily-living trials: each of mobgap's turns through at least 90° overlaps turns
    /// of recorderd's in the same direction whose angles together are within 45° of mobgap's
    /// (measured: all 29, 11.6° apart on average); the figures are printed per trial.
    @Test func recorderdFindsTheTurnsMobgapFinds() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/imu/mobgap/mobgap_turns.json"))
        let peer = try JSONDecoder().decode([String: [PeerTurn]].self, from: data)
        var large = 0, matched = 0
        var angleErrors: [Double] = []
        for (trial, theirs) in peer.sorted(by: { $0.key < $1.key }) where trial.contains("Test11") {
            let ours = try Self.turns(trial)
            var trialMatched = 0
            for turn in theirs where abs(turn.angle) >= 90 {
                large += 1
                let overlapping = ours.filter { $0.start < turn.end && $0.end > turn.start && ($0.angle > 0) == (turn.angle > 0) }
                guard !overlapping.isEmpty else { continue }
                let angle = overlapping.map(\.angle).reduce(0, +)
                angleErrors.append(abs(angle - turn.angle))
                if abs(angle - turn.angle) <= 45 {
                    matched += 1
                    trialMatched += 1
                }
            }
            print("turns \(trial): recorderd \(ours.count), mobgap \(theirs.count) (\(theirs.filter { abs($0.angle) >= 90 }.count) of 90° or more, "
                + "\(trialMatched) found by recorderd within 45°)")
        }
        let mae = angleErrors.reduce(0, +) / Double(max(1, angleErrors.count))
        print("turns: \(matched) of mobgap's \(large) turns of 90° or more found, angle difference \(String(format: "%.1f", mae))° mean")
        #expect(large > 20)
        #expect(matched == large, "\(matched) of \(large)")
        #expect(mae <= 15)
    }
}
