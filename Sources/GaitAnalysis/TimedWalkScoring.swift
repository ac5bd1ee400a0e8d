import RecorderModel

/// A timed walk over a marked distance (the 10-metre walk test; the 25-foot walk of the MS
/// Functional Composite): the time the participant takes over `distance` at the speed of their
/// steady walking. As in the 10-metre test's usual protocol, where the time is taken over the
/// middle 10 m of a longer walk, the steps of acceleration and deceleration are left out: the
/// speed is that of the step's longest bout without its first and last `edgeSteps` steps (all of
/// it when it is too short for that).
struct TimedWalkScoring: WalkingTestScoring {
    let distance: Double
    /// Steps left out at each end of the bout: about the 2 m zones of the protocol.
    static let edgeSteps = 2

    mutating func add(uptime: Double, up: Vector3) {}

    func outcome(of stretch: WalkingTestStretch) -> WalkingTestOutcome {
        var o = WalkingTestOutcome(kind: .timedWalk)
        o.courseLength = distance
        o.distance = distance
        guard stretch.measuresLength else {
            o.note = WalkingTest.noHeight
            return o
        }
        guard let bout = stretch.bouts.max(by: { $0.steps.count < $1.steps.count }), bout.steps.count >= 3,
              let mean = stretch.meanStepLength else {
            o.note = "no walking was found"
            return o
        }
        let edge = bout.steps.count >= 2 * Self.edgeSteps + 4 ? Self.edgeSteps : 0
        let first = edge, last = bout.steps.count - 1 - edge
        var walked = 0.0
        for i in (first + 1)...last { walked += bout.lengths[i] ?? mean }
        let time = bout.steps[last] - bout.steps[first]
        guard time > 0, walked > 0 else {
            o.note = "no walking was found"
            return o
        }
        let speed = walked / time
        o.walkingSpeed = WalkingMeasures.millimetres(speed)
        o.duration = WalkingMeasures.millimetres(distance / speed)
        return o
    }
}
