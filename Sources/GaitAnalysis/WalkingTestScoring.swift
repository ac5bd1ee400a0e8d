import RecorderModel

/// What a walking test is scored from: its step's stretch of the recording as the gait analysis
/// found it.
struct WalkingTestStretch {
    /// The stretch's first and last sample's uptimes.
    var start: Double
    var end: Double
    /// The walking steps of each bout in the stretch (contact uptimes, in time order) and the
    /// lengths of the steps ending at them (m; nil where not measured, or no height).
    var bouts: [(steps: [Double], lengths: [Double?])]
    var turns: [Turn]
    /// The stretch's walking measures (nil: no walking).
    var walking: WalkingMeasures?
    /// Whether step lengths are measured (the participant's height is known).
    var measuresLength: Bool
}

/// How one kind of clinical walking test is scored over its step (`WalkingTest`): each kind is
/// its own type, fed the stretch's samples as they come and asked for the outcome once.
protocol WalkingTestScoring: Sendable {
    /// One sample at `uptime`: the up direction in the device's frame (unit; what fused gravity
    /// says), for the trunk's inclination.
    mutating func add(uptime: Double, up: Vector3)
    /// The test's outcome over `stretch`.
    func outcome(of stretch: WalkingTestStretch) -> WalkingTestOutcome
}

extension WalkingTest {
    /// The scoring of this test's kind.
    func makeScoring() -> any WalkingTestScoring {
        switch kind {
        case .sixMinuteWalk: SixMinuteWalkScoring(courseLength: courseLength)
        case .timedWalk: TimedWalkScoring(distance: courseLength ?? Self.defaultTimedDistance)
        case .timedUpAndGo: TimedUpAndGoScoring()
        }
    }

    /// Turns through at least this many degrees are a turn at a course's end (a U-turn: 180°,
    /// measured 150–200° on a trunk sensor; the rest of a corridor's swerves are far smaller).
    public static let courseEndTurn = 120.0
    /// Why a test that needs step lengths has none.
    static let noHeight = "the gait action has neither the participant's bodyHeight nor the sensorHeight"
}

extension WalkingTestStretch {
    /// The mean measured step length of the stretch (m), nil when none was measured.
    var meanStepLength: Double? {
        let measured = bouts.flatMap { $0.lengths.dropFirst().compactMap { $0 } }
        return measured.isEmpty ? nil : measured.reduce(0, +) / Double(measured.count)
    }

    /// Metres walked in the bouts' steps after `time` (each step's interval ends at a contact;
    /// an unmeasured step counts as the mean step).
    func distance(after time: Double) -> Double {
        guard let mean = meanStepLength else { return 0 }
        var total = 0.0
        for bout in bouts {
            for i in bout.steps.indices.dropFirst() where bout.steps[i - 1] >= time {
                total += bout.lengths[i] ?? mean
            }
        }
        return total
    }
}
