import Foundation
import GaitAnalysis
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import Testing

/// Left and right against the foot-worn reference (INDIP): each trial replayed through fusion
/// and the gait tracker as a recording runs them; every step within 0.25 s of a reference
/// contact is scored on its side.
@Suite("Step sides against the INDIP reference")
struct StepSideAccuracyTests {
    /// The reference's `[seconds, side]` pairs per trial (`reference_sides.json`).
    static func reference() throws -> [String: [(time: Double, side: FootSide)]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/imu/mobgap/reference_sides.json"))
        let raw = try JSONDecoder().decode([String: [[JSONValue]]].self, from: data)
        return try raw.mapValues { pairs in
            try pairs.map { pair in
                guard pair.count == 2, case .number(let t) = pair[0], case .string(let s) = pair[1], let side = FootSide(rawValue: s) else {
                    throw FixtureError("a reference pair is not [seconds, side]: \(pair)")
                }
                return (t, side)
            }
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The steps the tracker reports for a trial, with their sides: rows at 100 Hz fused
    /// (`InitialContactAccuracyTests.fused`), the vertical user acceleration and the rate of turn
    /// about fused vertical fed as `GaitRecords` feeds them.
    static func steps(_ trial: String, rotation: Quaternion = .identity) throws -> [(time: Double, side: FootSide?)] {
        var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: false)
        var events: [GaitTracker.Event] = []
        let rows = try Fixtures.rows(Fixtures.root + "/imu/mobgap/\(trial).csv")
        for sample in InitialContactAccuracyTests.fused(rows, rotation: rotation) {
            tracker.add(uptime: sample.uptime, stepPath: "walk", vertical: sample.vertical, ap: 0, ml: 0, yawRate: sample.yawRate,
                        events: &events)
        }
        tracker.finish(events: &events)
        return events.compactMap { if case .step(let t, let side, _) = $0 { return (t, side) } else { return nil } }
    }

    /// Steps matched to reference contacts (nearest within 0.25 s), and how many have the
    /// reference's side.
    static func score(_ steps: [(time: Double, side: FootSide?)], against reference: [(time: Double, side: FootSide)]) -> (matched: Int, correct: Int, unknown: Int) {
        var matched = 0, correct = 0, unknown = 0
        for r in reference {
            guard let step = steps.min(by: { abs($0.time - r.time) < abs($1.time - r.time) }), abs(step.time - r.time) <= 0.25 else { continue }
            matched += 1
            if step.side == nil { unknown += 1 } else if step.side == r.side { correct += 1 }
        }
        return (matched, correct, unknown)
    }

    @Test func sidesAgreeWithTheReference() throws {
        var matched = 0, correct = 0
        for (trial, reference) in try Self.reference().sorted(by: { $0.key < $1.key }) {
            let s = Self.score(try Self.steps(trial), against: reference)
            print(String(format: "gait side %@: %d of %d matched steps (%.3f), %d unknown", trial, s.correct, s.matched,
                         Double(s.correct) / Double(max(1, s.matched)), s.unknown))
            matched += s.matched
            correct += s.correct
            #expect(s.unknown == 0, "\(trial): every matched step has a side (a gyroscope, no gap)")
        }
        let accuracy = Double(correct) / Double(max(1, matched))
        print(String(format: "gait side: %d of %d (%.3f)", correct, matched, accuracy))
        #expect(matched >= 190)
        #expect(accuracy >= 0.8, "\(correct) of \(matched)")
    }

    /// Any orientation: the yaw rate is the rotation about fused vertical, so a sensor turned
    /// upside down or by 90° about any axis tells the same sides (each step with a twin within
    /// 0.05 s: at most one of them differs).
    @Test(arguments: [Quaternion(axis: Vector3(x: 0, y: 1, z: 0), angle: .pi), Quaternion(axis: Vector3(x: 1, y: 0, z: 0), angle: .pi / 2),
                      Quaternion(axis: Vector3(x: 0, y: 1, z: 0), angle: .pi / 2), Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: .pi / 2)])
    func aTurnedSensorTellsTheSameSides(rotation: Quaternion) throws {
        let trial = "HA/001/TimeMeasure1_Test11_Trial1"
        let upright = try Self.steps(trial)
        let turned = try Self.steps(trial, rotation: rotation)
        var twins = 0, differ = 0
        for step in turned {
            guard let twin = upright.first(where: { abs($0.time - step.time) <= 0.05 }) else { continue }
            twins += 1
            if twin.side != step.side { differ += 1 }
        }
        #expect(twins >= upright.count - 2, "\(twins) twins of \(upright.count) steps")
        #expect(differ <= 1, "\(differ) of \(twins) twins differ in side")
    }
}
