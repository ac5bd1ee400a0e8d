import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// What a gait analysis accumulates over one stretch of a recording with one step path: the
/// steps and bouts attributed to it by time, its regularity sums, sway, movement and turns. The
/// detectors run on across stretches (`GaitTracker`); a stretch only collects.
///
/// Sway and the movement that decides standing are measured over the stretch's *quiet part*:
/// from `settleAfterStep` after its last walking step on (all of it when it has none). A rest
/// step that begins with the walk's last steps — the participant still walking when the step
/// changed — is then standing with its sway, when the quiet part is the larger part of it; its
/// steps are still counted in it.
struct GaitStretch: Sendable {
    /// Seconds after a walking step before the trunk is taken as still again (the other foot
    /// comes alongside; the walk's deceleration dies away).
    static let settleAfterStep = 1.0

    let stepPath: String
    let start: Double
    var end: Double
    let rate: Double
    /// Steps of each bout (by the bout's number) that fall in the stretch, with the lengths of
    /// the steps ending at them (nil where not measured).
    var boutSteps: [(bout: Int, steps: [Double], lengths: [Double?])] = []
    /// Whether step lengths are measured (the participant's height is known).
    let measuresLength: Bool
    var regularity = RegularityAccumulator(rate: InitialContactDetector.rate)
    var sway: SwayAccumulator?
    /// Where the quiet part begins: `settleAfterStep` after the last walking step so far.
    private(set) var quietFrom = -Double.infinity
    var turns: [Turn] = []
    var hasYawRate = false
    /// The clinical walking test scored over this stretch, when it is the test's step.
    var walkingTest: (any WalkingTestScoring)?
    /// Sums and sums of squares of the AP, ML and vertical acceleration of the quiet part (for
    /// their spread about its mean: a posture held at a slight lean is still standing), and its
    /// samples.
    private var sums = (ap: 0.0, ml: 0.0, vertical: 0.0)
    private var squares = (ap: 0.0, ml: 0.0, vertical: 0.0)
    private var quietSamples = 0
    var gapCount = 0
    var droppedSamples = 0

    init(stepPath: String, start: Double, rate: Double, measuresSway: Bool, measuresLength: Bool = false) {
        self.stepPath = stepPath
        self.measuresLength = measuresLength
        self.start = start
        end = start
        self.rate = rate
        sway = measuresSway ? SwayAccumulator(rate: rate) : nil
    }

    /// One sample's horizontal (AP, ML) and vertical acceleration, g: into sway and the
    /// movement sums when it lies in the quiet part; its up direction (device frame, unit) into
    /// the walking test.
    mutating func addMotion(uptime: Double, ap: Double, ml: Double, vertical: Double, up: Vector3? = nil) {
        if let up { walkingTest?.add(uptime: uptime, up: up) }
        guard uptime >= quietFrom else { return }
        quietSamples += 1
        sums.ap += ap
        sums.ml += ml
        sums.vertical += vertical
        squares.ap += ap * ap
        squares.ml += ml * ml
        squares.vertical += vertical * vertical
        sway?.add(ap: ap, ml: ml)
    }

    /// A walking step of bout number `bout` at `time`, and the length of the step ending at it
    /// (m): counted, and the quiet part starts over after it.
    mutating func addStep(_ time: Double, bout: Int, length: Double? = nil) {
        if let i = boutSteps.lastIndex(where: { $0.bout == bout }) {
            boutSteps[i].steps.append(time)
            boutSteps[i].lengths.append(length)
        } else {
            // The first step of the bout in this stretch: its step began in another stretch.
            boutSteps.append((bout, [time], [nil]))
        }
        let from = time + Self.settleAfterStep
        guard from > quietFrom else { return }
        quietFrom = from
        sums = (0, 0, 0)
        squares = (0, 0, 0)
        quietSamples = 0
        if sway != nil { sway = SwayAccumulator(rate: rate) }
    }

    /// The summary of the stretch for the action `identifier`; nil when shorter than
    /// `GaitTracker.shortestSummary`.
    func summary(identifier: String) -> GaitStepSummary? {
        guard end - start >= GaitTracker.shortestSummary else { return nil }
        var s = measures(identifier: identifier)
        if let walkingTest {
            let bouts = boutSteps.filter { !$0.steps.isEmpty }.map { (steps: $0.steps, lengths: $0.lengths) }
            s.walkingTest = walkingTest.outcome(of: WalkingTestStretch(start: start, end: end, bouts: bouts, turns: turns,
                                                                       walking: s.walking, measuresLength: measuresLength))
        }
        return s
    }

    /// The summary's measures.
    private func measures(identifier: String) -> GaitStepSummary {
        var s = GaitStepSummary(identifier: identifier, stepPath: stepPath, startUptime: start, endUptime: end, activity: .neither)
        s.gapCount = gapCount
        s.droppedSamples = droppedSamples
        if hasYawRate { s.turns = turns }
        let bouts = boutSteps.map(\.steps).filter { !$0.isEmpty }
        let lengths = measuresLength ? boutSteps.filter { !$0.steps.isEmpty }.map(\.lengths) : nil
        let n = Double(max(1, quietSamples))
        func variance(_ sum: Double, _ square: Double) -> Double { max(0, square / n - (sum / n) * (sum / n)) }
        let horizontal = (variance(sums.ap, squares.ap) + variance(sums.ml, squares.ml)).squareRoot()
        let vertical = variance(sums.vertical, squares.vertical).squareRoot()
        let isStill = quietSamples > 0 && horizontal <= GaitTracker.standingLimit && vertical <= GaitTracker.standingLimit
        if !bouts.isEmpty {
            var walking = WalkingMeasures(bouts: bouts, lengths: lengths)
            if let stepTime = walking.stepTimeMean, let r = regularity.measures(stepTime: stepTime) {
                walking.stepRegularity = r.stepRegularity
                walking.strideRegularity = r.strideRegularity
                walking.symmetry = r.symmetry
            }
            s.walking = walking
            if !measuresLength {
                s.note = "no walking speed or distance: the gait action has neither the participant's bodyHeight nor the sensorHeight"
            }
            // Standing only when the still quiet part is most of the stretch (the walk's last
            // steps at its start).
            let quiet = Double(quietSamples) / rate
            guard isStill, quiet >= GaitTracker.shortestSummary, quiet >= (end - start) - quiet else {
                s.activity = .walking
                return s
            }
            s.note = "\(walking.stepCount) step\(walking.stepCount == 1 ? "" : "s") at the start; standing (and sway) from "
                + FixedDecimal.text(quietFrom - start, decimals: 1) + " s" + " on"
        }
        if isStill {
            s.activity = .standing
            if let sway {
                s.sway = sway.result
            } else {
                s.note = [s.note, "sway is measured with the sensor at the lower back"].compactMap { $0 }.joined(separator: "; ")
            }
        } else {
            s.note = "movement without walking: acceleration RMS \(FixedDecimal.text(horizontal, decimals: 3)) g horizontal, "
                + "\(FixedDecimal.text(vertical, decimals: 3)) g vertical"
        }
        return s
    }
}
