import Foundation
import GaitAnalysis
import RecorderModel
import Testing

@Suite("Walking measures")
struct WalkingMeasuresTests {
    @Test func aSummaryOfTwoBoutsWorkedByHand() throws {
        let s = WalkingMeasures(bouts: [[0, 0.5, 1.0, 1.5], [10, 10.6, 11.2]])
        #expect(s.stepCount == 7 && s.bouts == [.init(start: 0, end: 1.5, steps: 4), .init(start: 10, end: 11.2, steps: 3)])
        #expect(abs(s.walkingDuration - 2.7) < 1e-12)
        // Five intervals stepped in 2.7 s; step times 0.5 ×3 and 0.6 ×2.
        #expect(abs(try #require(s.cadence) - 60 * 5 / 2.7) < 1e-9)
        #expect(abs(try #require(s.stepTimeMean) - 0.54) < 1e-12)
        #expect(abs(try #require(s.stepTimeCV) - 0.003.squareRoot() / 0.54) < 1e-9)
        #expect(WalkingMeasures(bouts: []).cadence == nil && WalkingMeasures(bouts: [[3]]).stepCount == 1)
    }

    /// Each step one zero-mean cycle of a sine. A gait whose every step looks alike: regularities
    /// of 1 and symmetry 1. One whose left steps are three times the right ones (amplitudes 1.5
    /// and 0.5): the step coefficient is E[a_i a_i+1] / E[a²] = 0.75 / 1.25 = 0.6, the stride
    /// coefficient 1.
    @Test(arguments: [(0.0, 1.0), (0.5, 0.6)])
    func regularityAndSymmetryOfASyntheticGaitAsItArrives(asymmetry: Double, expectedStep: Double) throws {
        let rate = 40.0, stepTime = 0.5
        let samples = (0..<Int(20 * rate)).map { i -> Double in
            let t = Double(i) / rate
            let side = Int((t / stepTime).rounded(.down)) % 2 == 0 ? 1 + asymmetry : 1 - asymmetry
            return side * sin(2 * Double.pi * t / stepTime)
        }
        func measures(_ values: [Double]) -> RegularityAccumulator.Measures? {
            var accumulator = RegularityAccumulator(rate: rate)
            accumulator.startBout(at: 0)
            for (i, v) in values.enumerated() { accumulator.add(time: Double(i) / rate, value: v) }
            accumulator.commit(upTo: .infinity)
            return accumulator.measures(stepTime: stepTime)
        }
        let r = try #require(measures(samples))
        #expect(abs(r.stepRegularity - expectedStep) < 0.03, "\(r)")
        #expect(abs(r.strideRegularity - 1) < 0.03, "\(r)")
        #expect(abs(r.symmetry - expectedStep) < 0.05, "\(r)")
        // Too short a bout for a stride's autocorrelation.
        #expect(measures(Array(samples.prefix(80))) == nil)
    }
}
