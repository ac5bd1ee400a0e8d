import Foundation
import RecorderModel

/// What a gait analysis accumulates over one stretch of a recording with one step path: the
/// steps and bouts attributed to it by time, its regularity sums, sway, movement and turns. The
/// detectors run on across stretches (`GaitTracker`); a stretch only collects.
struct GaitStretch: Sendable {
    let stepPath: String
    let start: Double
    var end: Double
    /// Steps of each bout (by the bout's number) that fall in the stretch.
    var boutSteps: [(bout: Int, steps: [Double])] = []
    var regularity = RegularityAccumulator(rate: InitialContactDetector.rate)
    var sway: SwayAccumulator?
    var turns: [Turn] = []
    var hasYawRate = false
    /// Sums and sums of squares of the AP, ML and vertical acceleration (for their spread about
    /// the stretch's mean: a posture held at a slight lean is still standing).
    var sums = (ap: 0.0, ml: 0.0, vertical: 0.0)
    var squares = (ap: 0.0, ml: 0.0, vertical: 0.0)
    var samples = 0
    var gapCount = 0
    var droppedSamples = 0

    init(stepPath: String, start: Double, rate: Double, measuresSway: Bool) {
        self.stepPath = stepPath
        self.start = start
        end = start
        sway = measuresSway ? SwayAccumulator(rate: rate) : nil
    }

    mutating func addStep(_ time: Double, bout: Int) {
        if let i = boutSteps.lastIndex(where: { $0.bout == bout }) {
            boutSteps[i].steps.append(time)
        } else {
            boutSteps.append((bout, [time]))
        }
    }

    /// The summary of the stretch for the action `identifier`; nil when shorter than
    /// `GaitTracker.shortestSummary`.
    func summary(identifier: String) -> GaitStepSummary? {
        guard end - start >= GaitTracker.shortestSummary else { return nil }
        var s = GaitStepSummary(identifier: identifier, stepPath: stepPath, startUptime: start, endUptime: end, activity: .neither)
        s.gapCount = gapCount
        s.droppedSamples = droppedSamples
        if hasYawRate { s.turns = turns }
        let bouts = boutSteps.map(\.steps).filter { !$0.isEmpty }
        if !bouts.isEmpty {
            s.activity = .walking
            var walking = WalkingMeasures(bouts: bouts)
            if let stepTime = walking.stepTimeMean, let r = regularity.measures(stepTime: stepTime) {
                walking.stepRegularity = r.stepRegularity
                walking.strideRegularity = r.strideRegularity
                walking.symmetry = r.symmetry
            }
            s.walking = walking
            return s
        }
        let n = Double(max(1, samples))
        func variance(_ sum: Double, _ square: Double) -> Double { max(0, square / n - (sum / n) * (sum / n)) }
        let horizontal = (variance(sums.ap, squares.ap) + variance(sums.ml, squares.ml)).squareRoot()
        let vertical = variance(sums.vertical, squares.vertical).squareRoot()
        if horizontal <= GaitTracker.standingLimit, vertical <= GaitTracker.standingLimit {
            s.activity = .standing
            if let sway { s.sway = sway.result } else { s.note = "sway is measured with the sensor at the lower back" }
        } else {
            s.note = String(format: "movement without walking: acceleration RMS %.3f g horizontal, %.3f g vertical", horizontal, vertical)
        }
        return s
    }
}
