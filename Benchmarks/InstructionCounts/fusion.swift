// Instruction counts of fusing device motion (scripts/count-instructions.sh builds this with the
// RecorderModel sources and MotionFusion's filter and fuser, and runs it under callgrind): the
// per-sample work of a device's fusion stage over a real walk's samples, in deliveries of 200
// frames. Usage: fusion WALK.csv N
import Foundation

let rows = try! String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8).split(separator: "\n").dropFirst().map { line in
    line.split(separator: ",").map { Double($0)! }
}
let n = Int(CommandLine.arguments[2])!
var frames: [SensorFrame] = (0..<n).map { i in
    let r = rows[i % rows.count]
    return .motion(MotionFrame(uptime: Double(i) / 10_000, accelerometer: Vector3(x: r[1], y: r[2], z: r[3]),
                               gyro: Vector3(x: r[4] * .pi / 180, y: r[5] * .pi / 180, z: r[6] * .pi / 180)))
}
var fuser = DeviceMotionFuser(usesMagnetometer: false)
var batch: [SensorFrame] = []
batch.reserveCapacity(200)
var fused = 0
for start in stride(from: 0, to: n, by: 200) {
    batch.removeAll(keepingCapacity: true)
    batch.append(contentsOf: frames[start..<min(start + 200, n)])
    fuser.process(&batch)
    for f in batch { if case .motion(let m) = f, m.fused != nil { fused += 1 } }
}
frames.removeAll()
precondition(fused == n)
print(fuser.filter.attitude)
