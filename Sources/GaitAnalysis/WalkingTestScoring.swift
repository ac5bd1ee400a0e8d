import RecorderModel

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
