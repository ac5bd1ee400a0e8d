import RecorderJSON

/// What a `gait` analysis found in one step of a task run (one stretch of one step path): in the
/// gait file's result (`stepSummaries`) and in the `step.finish` response of that step. Which
/// measures it carries is decided by the data: walking measures when the step held a walking
/// bout, sway measures when the subject stood still, neither otherwise (`activity` and `note`
/// say why).
public struct GaitStepSummary: Sendable, Equatable, Codable {
    /// What the data show the subject did.
    public enum Activity: String, Sendable, Codable {
        /// At least one walking bout (a run of regular steps).
        case walking
        /// No walking, or walking only in a smaller first part of the step (the walk's last steps
        /// when the step changed: `walking` counts them, `note` says so), and little enough
        /// movement after it to measure postural sway (`sway`, over that part).
        case standing
        /// Neither: movement without walking, or too little data.
        case neither
    }

    /// The `gait` async action.
    public var identifier: String
    public var stepPath: String
    /// CLOCK_MONOTONIC seconds of the stretch's first and last sample analysed.
    public var startUptime: Double
    public var endUptime: Double
    public var activity: Activity
    /// Why the activity is `neither`, which first part of a `standing` step held steps, or why a
    /// walk has no speed or distance (no height in the gait action).
    public var note: String?
    /// Gaps within the stretch (samples lost, each reported by a gap record in the motion data):
    /// the analysis went on around them.
    public var gapCount: Int
    public var droppedSamples: Int
    public var walking: WalkingMeasures?
    public var sway: SwayMeasures?
    /// Turns the gyroscope showed (devices without one: nil).
    public var turns: [Turn]?
    /// The clinical walking test's outcome, when the gait action scores one over this step.
    public var walkingTest: WalkingTestOutcome?
    /// True in a `step.finish` answer given while the analysis could still change it: the step
    /// ended mid-walk, with contacts in the detector's look-ahead or a run of steps not yet
    /// confirmed as a bout (the participant walked on into the next step). The task result's
    /// summary of the step is the final one; `recorderctl run` prints both. Absent otherwise.
    public var provisional: Bool?

    public init(identifier: String, stepPath: String, startUptime: Double, endUptime: Double, activity: Activity) {
        self.identifier = identifier
        self.stepPath = stepPath
        self.startUptime = startUptime
        self.endUptime = endUptime
        self.activity = activity
        gapCount = 0
        droppedSamples = 0
    }

    /// One line for people: "walking.outbound: 22 steps, 104 steps/min" (with
    /// " (provisional)" when it is).
    public var headline: String {
        measuresLine + (walkingTest.map { "; " + $0.headline } ?? "") + (provisional == true ? " (provisional)" : "")
    }

    private var measuresLine: String {
        switch activity {
        case .walking:
            let w = walking ?? WalkingMeasures()
            var s = "\(stepPath): \(w.stepCount) steps"
            if let c = w.cadence { s += ", \(Int(c.rounded())) steps/min" }
            if let d = w.distance { s += ", " + FixedDecimal.text(d, decimals: 1) + " m" }
            if let v = w.walkingSpeed { s += " at " + FixedDecimal.text(v, decimals: 2) + " m/s" }
            if w.bouts.count > 1 { s += " in \(w.bouts.count) bouts" }
            if let t = turns, !t.isEmpty { s += ", \(t.count) turn\(t.count == 1 ? "" : "s")" }
            return s + gapSuffix
        case .standing:
            // Steps at the start of a standing step (the walk's last ones) are said after the sway.
            let steps = walking.map { w in ", after \(w.stepCount) step\(w.stepCount == 1 ? "" : "s")" } ?? ""
            guard let sway else { return "\(stepPath): standing" + steps + gapSuffix }
            return "\(stepPath): standing, sway RMS \(Self.milliG(sway.rmsAP)) AP / \(Self.milliG(sway.rmsML)) ML mg, "
                + "path \(Self.milliG(sway.pathLength)) mg" + steps + gapSuffix
        case .neither:
            return "\(stepPath): neither walking nor standing" + (note.map { " (\($0))" } ?? "")
        }
    }

    private var gapSuffix: String {
        gapCount == 0 ? "" : " (around \(gapCount) gap\(gapCount == 1 ? "" : "s"), \(droppedSamples) samples lost)"
    }

    private static func milliG(_ g: Double) -> String {
        let mg = g * 1000
        return mg >= 10 ? String(Int(mg.rounded())) : String(Double(Int((mg * 10).rounded())) / 10)
    }
}
