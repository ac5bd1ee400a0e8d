import RecorderModel

/// The six-minute walk test (ATS statement, 2002): the distance walked over the step. In a
/// corridor of `courseLength` metres the participant walks to its end, turns and walks back; each
/// turn at an end (`WalkingTest.courseEndTurn`) completes one length, and the distance is the
/// lengths' plus the steps' after the last turn (at most one length) — as a clinician counts laps
/// and measures the last part. Without a corridor, the distance is the steps' (the inverted
/// pendulum's, `PendulumStepLength`).
struct SixMinuteWalkScoring: WalkingTestScoring {
    let courseLength: Double?

    mutating func add(uptime: Double, up: Vector3) {}

    func outcome(of stretch: WalkingTestStretch) -> WalkingTestOutcome {
        var o = WalkingTestOutcome(kind: .sixMinuteWalk)
        o.duration = WalkingMeasures.millimetres(stretch.end - stretch.start)
        o.courseLength = courseLength
        let stepDistance = stretch.walking?.distance
        if let courseLength {
            let ends = stretch.turns.filter { abs($0.angle) >= WalkingTest.courseEndTurn }
            o.lengths = ends.count
            o.stepDistance = stepDistance
            if let last = ends.last {
                // Without a height the part after the last turn is unknown (0 from the steps).
                o.distance = WalkingMeasures.millimetres(Double(ends.count) * courseLength + min(courseLength, stretch.distance(after: last.end)))
                if !stretch.measuresLength { o.note = "the last length's part after the last turn is not counted: " + WalkingTest.noHeight }
            } else if let stepDistance {
                o.distance = stepDistance
                o.note = "no turn at the corridor's ends was found: the distance is the steps'"
            } else {
                o.note = "no distance: no turn at the corridor's ends was found"
                    + (stretch.measuresLength ? "" : " and " + WalkingTest.noHeight)
                return o
            }
        } else {
            guard let stepDistance else {
                o.note = stretch.measuresLength ? "no walking was found" : "no distance: " + WalkingTest.noHeight
                return o
            }
            o.distance = stepDistance
        }
        if let distance = o.distance, let duration = o.duration, duration > 0 {
            o.walkingSpeed = WalkingMeasures.millimetres(distance / duration)
        }
        return o
    }
}
