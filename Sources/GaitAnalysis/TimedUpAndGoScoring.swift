import FoundationEssentials
import Glibc
import RecorderModel

/// The Timed Up and Go from a lower-back sensor, in phases as the instrumented TUG finds them
/// (Salarian et al., "iTUG, a sensitive and reliable measure of mobility", IEEE TNSRE 18(3), 2010;
/// Zijlstra et al., "Sit-stand and stand-sit transitions in older adults and patients with
/// Parkinson's disease: event detection based on motion sensors versus force plates", JNER 9,
/// 2012): the transitions from the trunk's inclination, the turns from its yaw rate
/// (`TurnDetector`).
///
/// - Sit-to-stand: the trunk leans forward from its seated posture (the step's first
///   `postureSeconds`) and comes up to its walking posture (the mean up direction over the
///   walking steps). It begins where the inclination from the seated posture last exceeds
///   `stillAngle` before its largest lean, and ends after it where the trunk, having come up,
///   stops pitching (its rate below `quietRate`) or is within `uprightAngle` of the walking
///   posture, whichever is first (a participant may stand a little more or less upright than
///   they walk).
/// - Stand-to-sit: the same backwards, about the seated posture of the step's last
///   `postureSeconds`.
/// - Turn: the first turn through at least `WalkingTest.courseEndTurn` after rising; turn to sit:
///   a later one.
/// The total is from the start of rising to the end of sitting down: the instrumented test's
/// time, without the participant's reaction to "go".
struct TimedUpAndGoScoring: WalkingTestScoring {
    /// Seconds per inclination sample kept (the up direction averaged over it).
    static let binSeconds = 0.05
    /// Samples kept at most: 10 minutes.
    static let capacity = 12_000
    /// Seconds at each end of the step over which the seated posture is taken.
    static let postureSeconds = 0.3
    /// Degrees: within it of the seated posture is still seated; within `uprightAngle` of the
    /// walking posture is upright; a lean of less than `leastLean` from the seated posture is no
    /// transition.
    static let stillAngle = 3.0
    static let uprightAngle = 5.0
    static let leastLean = 15.0
    /// Degrees per second: a trunk pitching slower than this (over three bins) has stopped.
    static let quietRate = 10.0

    /// Bins: their middle uptime and summed up direction.
    private var times: [Double] = []
    private var ups: [Vector3] = []
    private var binStart: Double?
    private var binSum = Vector3(x: 0, y: 0, z: 0)
    private var binCount = 0

    mutating func add(uptime: Double, up: Vector3) {
        guard times.count < Self.capacity else { return }
        if let start = binStart, uptime - start >= Self.binSeconds { closeBin() }
        if binStart == nil { binStart = uptime }
        binSum = binSum + up
        binCount += 1
    }

    private mutating func closeBin() {
        guard let start = binStart, binCount > 0 else { return }
        let length = binSum.length
        if length > 0 {
            times.append(start + Self.binSeconds / 2)
            ups.append(binSum * (1 / length))
        }
        binStart = nil
        binSum = Vector3(x: 0, y: 0, z: 0)
        binCount = 0
    }

    func outcome(of stretch: WalkingTestStretch) -> WalkingTestOutcome {
        var copy = self
        copy.closeBin()
        return copy.score(stretch)
    }

    private func score(_ stretch: WalkingTestStretch) -> WalkingTestOutcome {
        var o = WalkingTestOutcome(kind: .timedUpAndGo)
        let steps = stretch.bouts.flatMap(\.steps).sorted()
        guard let firstStep = steps.first, let lastStep = steps.last, lastStep > firstStep else {
            o.note = "no walking was found"
            return o
        }
        guard times.count >= 4 else {
            o.note = "no inclination: the device gives no gravity"
            return o
        }
        let walkingPosture = mean(from: firstStep, to: lastStep)
        let seatedFirst = mean(from: times.first!, to: times.first! + Self.postureSeconds)
        let seatedLast = mean(from: times.last! - Self.postureSeconds, to: times.last!)
        guard let walkingPosture, let seatedFirst, let seatedLast else {
            o.note = "no inclination: the device gives no gravity"
            return o
        }
        // Rising: the largest lean from the seated posture before walking got under way.
        guard let rise = largestLean(from: seatedFirst, between: times.first!, and: firstStep + 1) else {
            o.note = "no sit-to-stand was found: the trunk did not lean forward before walking"
            return o
        }
        var riseStart = times[rise]
        for i in stride(from: rise, through: 0, by: -1) where angle(ups[i], seatedFirst) <= Self.stillAngle {
            riseStart = times[i]
            break
        }
        let riseEnd = times[settled(from: rise, by: 1, upright: walkingPosture)]
        guard let sit = largestLean(from: seatedLast, between: max(riseEnd, lastStep - 1), and: times.last!, latest: true) else {
            o.note = "no stand-to-sit was found: the trunk did not lean forward after walking"
            return o
        }
        let sitStart = times[settled(from: sit, by: -1, upright: walkingPosture)]
        var sitEnd = times[sit]
        for i in sit..<times.count where angle(ups[i], seatedLast) <= Self.stillAngle {
            sitEnd = times[i]
            break
        }
        var phases = [WalkingTestOutcome.Phase(name: .sitToStand, start: riseStart, end: riseEnd)]
        let turns = stretch.turns.filter { abs($0.angle) >= WalkingTest.courseEndTurn && $0.start >= riseStart && $0.end <= sitEnd }
        if let turn = turns.first {
            phases.append(.init(name: .walkOut, start: riseEnd, end: max(riseEnd, turn.start)))
            phases.append(.init(name: .turn, start: turn.start, end: turn.end))
            if turns.count >= 2, let toSit = turns.last {
                phases.append(.init(name: .walkBack, start: turn.end, end: max(turn.end, toSit.start)))
                phases.append(.init(name: .turnToSit, start: toSit.start, end: toSit.end))
            } else {
                phases.append(.init(name: .walkBack, start: turn.end, end: max(turn.end, sitStart)))
            }
        } else {
            phases.append(.init(name: .walkOut, start: riseEnd, end: max(riseEnd, sitStart)))
            o.note = "no turn was found (the device has no gyroscope, or the participant did not turn)"
        }
        phases.append(.init(name: .standToSit, start: sitStart, end: sitEnd))
        o.phases = phases.map { .init(name: $0.name, start: WalkingMeasures.millimetres($0.start), end: WalkingMeasures.millimetres($0.end)) }
        o.duration = WalkingMeasures.millimetres(sitEnd - riseStart)
        return o
    }

    /// From the bin of a lean's peak, stepping by `direction`: the first bin where the trunk is
    /// within `uprightAngle` of `upright`, or has stopped pitching (`quietRate`) after it began
    /// to move from the peak; the last bin looked at when neither.
    private func settled(from peak: Int, by direction: Int, upright: Vector3) -> Int {
        var moving = false
        var i = peak
        while i + direction >= 1, i + direction < times.count - 1 {
            i += direction
            if angle(ups[i], upright) <= Self.uprightAngle { return i }
            let rate = (angle(ups[i - 1], ups[i]) + angle(ups[i], ups[i + 1])) / (2 * Self.binSeconds)
            if rate >= Self.quietRate { moving = true } else if moving { return i }
        }
        return i
    }

    /// The bin of the largest inclination from `posture` between two uptimes (the latest of
    /// equal ones when `latest`), when it is at least `leastLean`.
    private func largestLean(from posture: Vector3, between start: Double, and end: Double, latest: Bool = false) -> Int? {
        var best: (index: Int, angle: Double)?
        for i in times.indices where times[i] >= start && times[i] <= end {
            let a = angle(ups[i], posture)
            if best == nil || (latest ? a >= best!.angle : a > best!.angle) { best = (i, a) }
        }
        guard let best, best.angle >= Self.leastLean else { return nil }
        return best.index
    }

    /// The mean up direction between two uptimes (unit), nil when no bin lies there.
    private func mean(from start: Double, to end: Double) -> Vector3? {
        var sum = Vector3(x: 0, y: 0, z: 0)
        for i in times.indices where times[i] >= start && times[i] <= end { sum = sum + ups[i] }
        let length = sum.length
        return length > 0 ? sum * (1 / length) : nil
    }

    /// Degrees between two unit vectors.
    private func angle(_ a: Vector3, _ b: Vector3) -> Double {
        acos(min(1, max(-1, a.dot(b)))) * 180 / .pi
    }
}
