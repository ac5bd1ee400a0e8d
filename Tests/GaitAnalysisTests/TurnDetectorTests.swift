import Foundation
import GaitAnalysis
import RecorderModel
import Testing

@Suite("Turns")
struct TurnDetectorTests {
    /// A 180° turn in 2 s (a raised-cosine rate, peak 180°/s), a 20° sway that is no turn, and a
    /// 90° turn the other way: two turns, their angles within 3°.
    @Test func turnsAreFoundWithTheirAngleAndSmallRotationsAreNot() {
        var detector = TurnDetector(rate: 100)
        func rate(_ t: Double, start: Double, seconds: Double, degrees: Double) -> Double {
            guard t >= start, t < start + seconds else { return 0 }
            // ∫ (1 − cos) over the turn = seconds: the peak is 2 × degrees / seconds.
            return degrees / seconds * (1 - cos(2 * Double.pi * (t - start) / seconds)) * Double.pi / 180
        }
        var turns: [Turn] = []
        for i in 0..<2000 {
            let t = Double(i) / 100
            let yaw = rate(t, start: 2, seconds: 2, degrees: 180) + rate(t, start: 7, seconds: 1.5, degrees: 20)
                + rate(t, start: 12, seconds: 1.5, degrees: -90)
            if let turn = detector.add(uptime: t, yawRate: yaw) { turns.append(turn) }
        }
        #expect(turns.count == 2, "\(turns)")
        #expect(turns.count == 2 && abs(turns[0].angle - 180) < 3 && abs(turns[1].angle + 90) < 3, "\(turns)")
        #expect(turns.first.map { $0.start > 2 && $0.end < 4.5 && $0.peakRate > 150 } == true, "\(turns)")
    }
}
