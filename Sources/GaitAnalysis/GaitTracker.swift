import FoundationEssentials
import Glibc
import RecorderModel

/// A gait analysis over a recording: the contact detector, the walking-bout rules and the turn
/// detector run continuously across step boundaries (a step change does not restart them, so no
/// step near a boundary is lost), and what they find is attributed by time to the stretch of
/// each step path (`GaitStretch`). A stretch's summary is final once nothing more can fall in
/// it: the detector is `settleTime` past its end and no unconfirmed run of contacts reaches back
/// into it. Pure: no clock, no I/O.
public struct GaitTracker: Sendable {
    /// What the analysis found, in time order of finding.
    public enum Event: Sendable, Equatable {
        /// An initial contact at this uptime, with its foot when the yaw rate tells it, and the
        /// length of the stride it ends (m) when the participant's height is known and both of its
        /// steps were measured.
        case step(Double, side: FootSide?, strideLength: Double?)
        /// A walking bout ended: its first and last step, its steps, its cadence (steps/min), and
        /// its distance, speed and stride length when the participant's height is known.
        case bout(start: Double, end: Double, steps: Int, cadence: Double?, spatial: BoutSpatialMeasures?)
    }

    /// Largest horizontal and vertical acceleration RMS (g) of a subject standing still: more is
    /// movement (shuffling, turning, sitting down) whose sway is not postural sway.
    public static let standingLimit = 0.05
    /// The shortest stretch summarised, seconds: a shorter one (a parent step's moment between
    /// two child steps) is too short to tell walking from standing.
    public static let shortestSummary = 1.0
    /// Seconds after a stretch's end by which the detector has reported every contact in it.
    public static let settleTime = 1.5

    public let identifier: String
    let rate: Double
    let measuresSway: Bool
    private var detector = InitialContactDetector()
    private var boutRules = WalkingBoutRules()
    private var turns: TurnDetector
    private var sides = StepSideClassifier()
    /// Step lengths, when the participant's height is known.
    private var stepLengths: StepLengthTracker?
    /// The clinical walking test scored over its step's stretches.
    private let walkingTest: WalkingTest?
    private var boutNumber = 0
    /// The steps of the bout under way and the lengths of the steps ending at them (its record's
    /// measures are computed as the summaries' are).
    private var boutSteps: [Double] = []
    private var boutLengths: [Double?] = []
    private var current: GaitStretch?
    /// Stretches that ended but may still receive steps.
    private var closing: [GaitStretch] = []
    /// Final summaries, in order.
    public private(set) var summaries: [GaitStepSummary] = []
    private var lastUptime = -Double.infinity
    /// The latest contact the detector reported.
    private var lastContact = -Double.infinity

    /// `identifier`: the action's; `rate`: samples per second; `measuresSway`: the sensor is
    /// where sway means postural sway (the lower back); `pendulumLength`: the sensor's height
    /// above the ground (m), for step lengths (nil: none); `walkingTest`: a clinical test scored
    /// over its step.
    public init(identifier: String, rate: Double, measuresSway: Bool, pendulumLength: Double? = nil, walkingTest: WalkingTest? = nil) {
        self.identifier = identifier
        self.walkingTest = walkingTest
        self.rate = rate
        self.measuresSway = measuresSway
        turns = TurnDetector(rate: rate)
        stepLengths = pendulumLength.map { StepLengthTracker(pendulumLength: $0, rate: rate, rules: boutRules.settings) }
    }

    /// One sample measured at `uptime` in the step `stepPath`: the vertical acceleration (up
    /// positive, gravity removed; g), the acceleration along the horizontal AP and ML directions
    /// (g; a constant offset does not matter), the rate of turn about the vertical (rad/s)
    /// when there is a gyroscope, and the up direction in the device's frame (unit; for a walking
    /// test's trunk inclination).
    public mutating func add(uptime: Double, stepPath: String, vertical: Double, ap: Double, ml: Double, yawRate: Double?,
                             up: Vector3? = nil, events: inout [Event]) {
        if current?.stepPath != stepPath {
            if let ended = current { closing.append(ended) }
            current = GaitStretch(stepPath: stepPath, start: uptime, rate: rate, measuresSway: measuresSway,
                                  measuresLength: stepLengths != nil)
            if let walkingTest, walkingTest.isScored(stepPath: stepPath) { current!.walkingTest = walkingTest.makeScoring() }
        }
        lastUptime = uptime
        current!.end = uptime
        current!.addMotion(uptime: uptime, ap: ap, ml: ml, vertical: vertical, up: up)
        if let yawRate {
            current!.hasYawRate = true
            sides.add(uptime: uptime, yawRate: yawRate)
            if let turn = turns.add(uptime: uptime, yawRate: yawRate) { withStretch(at: turn.start) { $0.turns.append(turn) } }
        }
        stepLengths?.add(uptime: uptime, vertical: vertical)
        let binBefore = detector.lastBin?.time
        let contacts = detector.add(uptime: uptime, verticalAcceleration: vertical)
        if let bin = detector.lastBin, bin.time != binBefore {
            withStretch(at: bin.time) { $0.regularity.add(time: bin.time, value: bin.value) }
        }
        for contact in contacts { take(contact, events: &events) }
        settle()
    }

    /// Samples were lost before the next one: the analysis goes on around the gap (a bout ends
    /// at it).
    public mutating func gap(droppedSamples dropped: Int, events: inout [Event]) {
        current?.gapCount += 1
        current?.droppedSamples += dropped
        for contact in detector.finish() { take(contact, events: &events) }
        apply(boutRules.finish(), events: &events)
        sides.reset()
        stepLengths?.reset()
    }

    /// The recording ends: what the detectors still hold; every stretch is summarised.
    public mutating func finish(events: inout [Event]) {
        for contact in detector.finish() { take(contact, events: &events) }
        apply(boutRules.finish(), events: &events)
        if let ended = current { closing.append(ended) }
        current = nil
        for stretch in closing { if let s = stretch.summary(identifier: identifier) { summaries.append(s) } }
        closing = []
    }

    /// The summary of the latest stretch of `stepPath` as the data stand now (what is in flight
    /// is not waited for: the detectors are run out on a copy): the final one when it is final,
    /// else `provisional` when the analysis could still change it (`couldStillChange`).
    public func summary(ofStep stepPath: String) -> GaitStepSummary? {
        let isOpen = current?.stepPath == stepPath || closing.contains { $0.stepPath == stepPath }
        guard isOpen else { return summaries.last { $0.stepPath == stepPath } }
        var copy = self
        var ignored: [Event] = []
        copy.finish(events: &ignored)
        var summary = copy.summaries.last { $0.stepPath == stepPath }
        if couldStillChange { summary?.provisional = true }
        return summary
    }

    /// The summary of the latest stretch of `stepPath` once it is final (nothing more can fall in
    /// it); nil while it is open.
    public func finalSummary(ofStep stepPath: String) -> GaitStepSummary? {
        let isOpen = current?.stepPath == stepPath || closing.contains { $0.stepPath == stepPath }
        return isOpen ? nil : summaries.last { $0.stepPath == stepPath }
    }

    /// True while steps may still be found or confirmed in what was just recorded: the latest
    /// contact is recent enough for the detector's look-ahead to hold the next, or for a run of
    /// contacts to still become (or continue) a bout — what `settle` waits for.
    var couldStillChange: Bool {
        lastUptime - lastContact <= boutRules.settings.longestStep + Self.settleTime
    }

    private mutating func take(_ contact: Double, events: inout [Event]) {
        // A bout this contact ends is recorded before it (records stay in time order).
        lastContact = contact
        // The step's length first: the bout rules may take the contact as a step at once.
        let stride = stepLengths?.contact(contact)
        apply(boutRules.add(contact), events: &events)
        events.append(.step(contact, side: sides.side(at: contact), strideLength: stride))
    }

    private mutating func apply(_ actions: [WalkingBoutRules.Action], events: inout [Event]) {
        for action in actions {
            switch action {
            case .boutStarted(let start):
                boutNumber += 1
                boutSteps = []
                boutLengths = []
                forEachOpenStretch { $0.regularity.startBout(at: start) }
            case .steps(let steps):
                for step in steps {
                    // The first step's length is of a step that began before the bout.
                    let length = boutSteps.isEmpty ? nil : stepLengths?.length(endingAt: step)
                    boutSteps.append(step)
                    boutLengths.append(length)
                    withStretch(at: step) { [boutNumber] in $0.addStep(step, bout: boutNumber, length: length) }
                }
                if let last = steps.last { forEachOpenStretch { $0.regularity.commit(upTo: last) } }
            case .boutEnded(let start, let end, let steps):
                forEachOpenStretch { $0.regularity.endBout() }
                let spatial = stepLengths == nil ? nil : WalkingMeasures.spatial(steps: boutSteps, lengths: boutLengths)
                events.append(.bout(start: start, end: end, steps: steps, cadence: WalkingMeasures(bouts: [boutSteps]).cadence, spatial: spatial))
                boutSteps = []
                boutLengths = []
            }
        }
    }

    /// Summarises the stretches nothing more can fall in.
    private mutating func settle() {
        guard let first = closing.first, lastUptime - first.end >= Self.settleTime else { return }
        // An unconfirmed run of contacts that may still become a bout holds back the stretches
        // it reaches into.
        let runAlive = lastUptime - (boutRules.run.last ?? -.infinity) <= boutRules.settings.longestStep + Self.settleTime
        let earliestPending = runAlive ? boutRules.run.first ?? .infinity : .infinity
        while let stretch = closing.first, lastUptime - stretch.end >= Self.settleTime,
              boutRules.isWalking || earliestPending > stretch.end {
            closing.removeFirst()
            if let s = stretch.summary(identifier: identifier) { summaries.append(s) }
        }
    }

    private mutating func withStretch(at time: Double, _ body: (inout GaitStretch) -> Void) {
        if let start = current?.start, time >= start {
            body(&current!)
            return
        }
        // Before every open stretch: before the recording (nothing to attribute it to).
        if let i = closing.lastIndex(where: { time >= $0.start }) { body(&closing[i]) }
    }

    private mutating func forEachOpenStretch(_ body: (inout GaitStretch) -> Void) {
        for i in closing.indices { body(&closing[i]) }
        if current != nil { body(&current!) }
    }
}
