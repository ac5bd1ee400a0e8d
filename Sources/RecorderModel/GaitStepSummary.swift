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
        /// No walking, and little enough movement to measure postural sway.
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
    /// Why the activity is `neither`, and what gaps the analysis went around.
    public var note: String?
    /// Gaps within the stretch (samples lost, each reported by a gap record in the motion data):
    /// the analysis went on around them.
    public var gapCount: Int
    public var droppedSamples: Int
    public var walking: WalkingMeasures?
    public var sway: SwayMeasures?
    /// Turns the gyroscope showed (devices without one: nil).
    public var turns: [Turn]?

    public init(identifier: String, stepPath: String, startUptime: Double, endUptime: Double, activity: Activity) {
        self.identifier = identifier
        self.stepPath = stepPath
        self.startUptime = startUptime
        self.endUptime = endUptime
        self.activity = activity
        gapCount = 0
        droppedSamples = 0
    }

    /// One line for people: "walking.outbound: 22 steps, 104 steps/min".
    public var headline: String {
        switch activity {
        case .walking:
            let w = walking ?? WalkingMeasures()
            var s = "\(stepPath): \(w.stepCount) steps"
            if let c = w.cadence { s += ", \(Int(c.rounded())) steps/min" }
            if w.bouts.count > 1 { s += " in \(w.bouts.count) bouts" }
            if let t = turns, !t.isEmpty { s += ", \(t.count) turn\(t.count == 1 ? "" : "s")" }
            return s + gapSuffix
        case .standing:
            guard let sway else { return "\(stepPath): standing" + gapSuffix }
            return "\(stepPath): standing, sway RMS \(Self.milliG(sway.rmsAP)) AP / \(Self.milliG(sway.rmsML)) ML mg, "
                + "path \(Self.milliG(sway.pathLength)) mg" + gapSuffix
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

/// Walking measures of one step (see `GaitStepSummary`).
public struct WalkingMeasures: Sendable, Equatable, Codable {
    /// One walking bout: its first and last initial contact (uptimes) and its steps.
    public struct Bout: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        public var steps: Int

        public init(start: Double, end: Double, steps: Int) {
            self.start = start
            self.end = end
            self.steps = steps
        }
    }

    public var stepCount = 0
    /// Steps per minute over the bouts: 60 × (intervals stepped) / (time they took).
    public var cadence: Double?
    /// Seconds from each bout's first contact to its last, summed.
    public var walkingDuration = 0.0
    public var bouts: [Bout] = []
    /// Mean and coefficient of variation (standard deviation / mean) of the step times within
    /// bouts, seconds.
    public var stepTimeMean: Double?
    public var stepTimeCV: Double?
    /// Autocorrelation of the vertical acceleration within the bouts at the step and stride lags
    /// (Moe-Nilssen & Helbostad), and their ratio.
    public var stepRegularity: Double?
    public var strideRegularity: Double?
    public var symmetry: Double?

    public init() {}
}

/// Postural-sway measures of one step (Mancini et al.'s instrumented sway), from the
/// acceleration in the horizontal plane: anterior-posterior (AP) and medio-lateral (ML).
public struct SwayMeasures: Sendable, Equatable, Codable {
    /// Root mean square about the mean, g.
    public var rmsAP: Double
    public var rmsML: Double
    /// Half the mean squared time derivative of the acceleration (AP and ML), g²/s².
    public var jerk: Double
    /// Length of the acceleration's trajectory in the horizontal plane, g.
    public var pathLength: Double
    /// pathLength / duration, g/s.
    public var meanVelocity: Double
    /// Area of the ellipse holding 95 % of the points, g².
    public var ellipseArea95: Double
    /// meanVelocity / (2π · mean distance from the mean point), Hz.
    public var meanFrequency: Double
    /// Seconds measured.
    public var duration: Double

    public init(rmsAP: Double, rmsML: Double, jerk: Double, pathLength: Double, meanVelocity: Double, ellipseArea95: Double,
                meanFrequency: Double, duration: Double) {
        self.rmsAP = rmsAP
        self.rmsML = rmsML
        self.jerk = jerk
        self.pathLength = pathLength
        self.meanVelocity = meanVelocity
        self.ellipseArea95 = ellipseArea95
        self.meanFrequency = meanFrequency
        self.duration = duration
    }
}

/// A turn about the vertical (see `GaitStepSummary`).
public struct Turn: Sendable, Equatable, Codable {
    /// Uptimes where the turn began and ended.
    public var start: Double
    public var end: Double
    /// Degrees turned, counter-clockwise seen from above positive.
    public var angle: Double
    /// Largest rate, degrees per second.
    public var peakRate: Double

    public init(start: Double, end: Double, angle: Double, peakRate: Double) {
        self.start = start
        self.end = end
        self.angle = angle
        self.peakRate = peakRate
    }
}
