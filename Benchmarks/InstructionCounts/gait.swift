// Instruction counts of the gait analysis (scripts/count-instructions.sh builds this with the
// RecorderModel sources, MotionFusion's pure files and GaitAnalysis, and runs it under callgrind):
// a real walk fused to its vertical acceleration first, then the contact detector and the
// walking-bout rules over it, counted inside `analyse`, and the whole tracker, counted inside
// `track` (with step lengths when a third argument gives the sensor height, m). GAIT_PART=analyse
// or track runs only that part (a counter without callgrind's --toggle-collect, qemu's, takes the
// difference of two runs of it instead). Usage: gait WALK.csv N [SENSOR_HEIGHT]
import Foundation

let rows = try! String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8).split(separator: "\n").dropFirst().map { line in
    line.split(separator: ",").map { Double($0)! }
}
let n = Int(CommandLine.arguments[2])!
let pendulumLength = CommandLine.arguments.count > 3 ? Double(CommandLine.arguments[3]) : nil
var fuser = DeviceMotionFuser(usesMagnetometer: false)
let signals: [(vertical: Double, ap: Double, ml: Double, yaw: Double)] = rows.enumerated().map { i, r in
    let frame = MotionFrame(uptime: Double(i) / 100, accelerometer: Vector3(x: r[1], y: r[2], z: r[3]),
                            gyro: Vector3(x: r[4] * .pi / 180, y: r[5] * .pi / 180, z: r[6] * .pi / 180))
    guard let m = fuser.fuse(frame) else { return (0, 0, 0, 0) }
    let up = m.gravity * (1 / m.gravity.length)
    return (m.userAcceleration.dot(up), r[2], r[3], m.rotationRate.dot(up))
}
let vertical = signals.map(\.vertical)

/// The per-sample work: every sample through the detector, every contact through the rules.
@inline(never)
func analyse(_ values: [Double], count: Int) -> Int {
    var detector = InitialContactDetector()
    var rules = WalkingBoutRules()
    var steps = 0
    for i in 0..<count {
        for contact in detector.add(uptime: Double(i) / 100, verticalAcceleration: values[i % values.count]) {
            for case .steps(let s) in rules.add(contact) { steps += s.count }
        }
    }
    return steps
}

/// The whole tracker: detector, bout rules, regularity, sway, turns and per-step stretches (the
/// step path changing every 30 s).
@inline(never)
func track(_ signals: [(vertical: Double, ap: Double, ml: Double, yaw: Double)], count: Int) -> Int {
    var tracker = GaitTracker(identifier: "gait", rate: 100, measuresSway: true, pendulumLength: pendulumLength)
    var events: [GaitTracker.Event] = []
    var total = 0
    let paths = ["task/walk", "task/stand"]
    for i in 0..<count {
        let s = signals[i % signals.count]
        tracker.add(uptime: Double(i) / 100, stepPath: paths[(i / 3000) % 2], vertical: s.vertical, ap: s.ap, ml: s.ml, yawRate: s.yaw,
                    events: &events)
        total += events.count
        events.removeAll(keepingCapacity: true)
    }
    tracker.finish(events: &events)
    return total + events.count
}

switch ProcessInfo.processInfo.environment["GAIT_PART"] {
case "analyse": print(analyse(vertical, count: n))
case "track": print(track(signals, count: n))
default: print(analyse(vertical, count: n), track(signals, count: n))
}
