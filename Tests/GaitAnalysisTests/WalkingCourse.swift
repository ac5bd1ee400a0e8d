import Foundation
import GaitAnalysis
import MotionFusion
import RecorderModel
import RecorderTestSupport

/// A walking test's course made of the real lower-back walks (HA/001's and MS/001's straight
/// walks, as the McRoberts sensor recorded them: x up, y medio-lateral, z antero-posterior) and
/// synthetic movements between them whose timing is known: turning on the spot, sitting, rising
/// from a chair and sitting down. The synthetic parts are rigid-body kinematics in the sensor's
/// frame — the up direction rotated by the trunk's pitch with the gyroscope's rate its
/// derivative, a turn's rate about the up direction — so fusion sees a consistent motion; they
/// are not recordings, and the tests that use them say so.
struct WalkingCourse {
    typealias Row = (acc: [Double], gyr: [Double])
    static let rate = 100.0

    /// What was put where, seconds from the course's start.
    struct Segment {
        enum Kind: Equatable { case walk(String), turn(Double), seated, rise, sitDown }
        var kind: Kind
        var start: Double
        var end: Double
    }

    private(set) var rows: [Row] = []
    private(set) var segments: [Segment] = []
    /// The up direction (sensor frame, unit) the synthetic parts start from: the standing
    /// posture at the start of the first walk.
    private(set) var standing = Vector3(x: 1, y: 0, z: 0)
    /// The seated posture's pitch from standing, degrees (reclined).
    let seatedPitch = -15.0
    /// The largest forward lean while rising or sitting down, degrees from standing.
    let leanPitch = 30.0

    var duration: Double { Double(rows.count) / Self.rate }

    /// A course whose synthetic parts start from the standing posture of `trial`'s first half
    /// second (the participant standing before the walk).
    init(postureOf trial: String) throws {
        var sum = Vector3(x: 0, y: 0, z: 0)
        for row in try Fixtures.rows(Self.path(trial)).prefix(50) { sum = sum + Vector3(x: row.acc[0], y: row.acc[1], z: row.acc[2]) }
        standing = sum * (1 / sum.length)
    }

    static func path(_ trial: String) -> String { Fixtures.root + "/imu/mobgap/\(trial).csv" }

    /// A real straight walk: the whole file (standing at its ends), or its rows from `from` to
    /// `to` seconds.
    mutating func walk(_ trial: String, from: Double = 0, to: Double = .infinity) throws {
        let rows = try Fixtures.rows(Self.path(trial))
        let first = min(rows.count, Int(from * Self.rate)), last = min(rows.count, to == .infinity ? rows.count : Int(to * Self.rate))
        append(.walk(trial), Array(rows[first..<max(first, last)]))
    }

    /// Turning on the spot through `degrees` (counter-clockwise seen from above positive) in
    /// `seconds`: the rate a half sine, about the standing up direction.
    mutating func turn(_ degrees: Double, seconds: Double) {
        let n = Int(seconds * Self.rate)
        append(.turn(degrees), (0..<n).map { i in
            let t = Double(i) / Double(n)
            let rate = degrees * .pi / (2 * seconds) * sin(.pi * t)
            let g = standing * rate
            return ([standing.x, standing.y, standing.z], [g.x, g.y, g.z])
        })
    }

    /// Sitting still, reclined by `seatedPitch`.
    mutating func seated(seconds: Double) {
        let up = pitched(seatedPitch)
        append(.seated, Array(repeating: ([up.x, up.y, up.z], [0, 0, 0]), count: Int(seconds * Self.rate)))
    }

    /// Rising from the chair in `seconds`: from the seated pitch forward to `leanPitch` (the
    /// first 40 %), then up to standing, while the trunk rises 0.35 m (minimum jerk).
    mutating func rise(seconds: Double) {
        append(.rise, transition(from: seatedPitch, to: 0, seconds: seconds, rise: 0.35))
    }

    /// Sitting down in `seconds`: forward to `leanPitch`, then back to the seated pitch, while the
    /// trunk drops 0.35 m.
    mutating func sitDown(seconds: Double) {
        append(.sitDown, transition(from: 0, to: seatedPitch, seconds: seconds, rise: -0.35))
    }

    /// The course as a CSV the replay device reads (the fixtures' columns).
    func csv() -> String {
        var text = "samples,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"
        for (i, row) in rows.enumerated() {
            text += "\(i)," + (row.acc + row.gyr).map { String(format: "%.6f", $0) }.joined(separator: ",") + "\n"
        }
        return text
    }

    /// The course through fusion as a recording fuses it: each sample's uptime, vertical user
    /// acceleration (g), yaw rate (rad/s) and up direction (sensor frame).
    func fused() -> [(uptime: Double, vertical: Double, yawRate: Double, up: Vector3)] {
        var fuser = DeviceMotionFuser(usesMagnetometer: false)
        var samples: [(uptime: Double, vertical: Double, yawRate: Double, up: Vector3)] = []
        for (i, row) in rows.enumerated() {
            let uptime = Double(i) / Self.rate
            let acc = Vector3(x: row.acc[0], y: row.acc[1], z: row.acc[2])
            let gyro = Vector3(x: row.gyr[0], y: row.gyr[1], z: row.gyr[2]) * (Double.pi / 180)
            guard let motion = fuser.fuse(MotionFrame(uptime: uptime, accelerometer: acc, gyro: gyro)) else { continue }
            let up = motion.gravity * (1 / motion.gravity.length)
            samples.append((uptime, motion.userAcceleration.dot(up), motion.rotationRate.dot(up), up))
        }
        return samples
    }

    /// The standing up direction pitched by `degrees` about the medio-lateral (y) axis.
    private func pitched(_ degrees: Double) -> Vector3 {
        let a = degrees * .pi / 180
        return Vector3(x: cos(a) * standing.x - sin(a) * standing.z, y: standing.y, z: sin(a) * standing.x + cos(a) * standing.z)
    }

    private func transition(from start: Double, to end: Double, seconds: Double, rise: Double) -> [Row] {
        let n = Int(seconds * Self.rate)
        let leanAt = 0.4
        func pitch(_ f: Double) -> Double {
            if f < leanAt { return start + (leanPitch - start) * (1 - cos(.pi * f / leanAt)) / 2 }
            return leanPitch + (end - leanPitch) * (1 - cos(.pi * (f - leanAt) / (1 - leanAt))) / 2
        }
        return (0..<n).map { i in
            let f = Double(i) / Double(n)
            let dt = 1 / Double(n)
            let rate = (pitch(min(1, f + dt / 2)) - pitch(max(0, f - dt / 2))) / (seconds * dt)
            // Minimum-jerk height: its acceleration in g along the up direction.
            let accel = rise * (60 * f - 180 * f * f + 120 * f * f * f) / (seconds * seconds) / 9.80665
            let up = pitched(pitch(f))
            let acc = up * (1 + accel)
            return ([acc.x, acc.y, acc.z], [0, rate, 0])
        }
    }

    private mutating func append(_ kind: Segment.Kind, _ new: [Row]) {
        let start = duration
        rows += new
        segments.append(Segment(kind: kind, start: start, end: duration))
    }
}
