// Instruction counts of a motion sample's way from the sampling thread to a reader, without the
// device and without the file (scripts/count-instructions.sh ring runs it under callgrind): N scans
// of 6 × s16 decoded as the IIO backend does (count × scale into a MotionFrame), delivered to a
// FrameRing in refills of 200, and read back by one reader that touches every frame — by `batch`
// (the ring's batches, no frame copied) or `copy` (`read(into:)`, a copy per frame).
// Usage: RingCount batch|copy N
import Glibc
import RecorderEngine
import RecorderModel

let arguments = CommandLine.arguments
guard arguments.count == 3, let scans = Int(arguments[2]), scans >= 0, ["batch", "copy"].contains(arguments[1]) else {
    print("usage: RingCount batch|copy N")
    exit(2)
}
let copying = arguments[1] == "copy"
let refill = 200
let ring = FrameRing(capacity: 300_000)
let reader = ring.addReader(fromUptime: nil) {}
// A refill's raw scans: 6 × s16, as the fake device's generator writes them.
var raw = [Int16](repeating: 0, count: refill * 6)
for i in raw.indices { raw[i] = Int16(truncatingIfNeeded: i &* 7919) }
let accelerometerScale = 0.000598 / 9.80665, gyroScale = 0.000153
var sum = 0.0
var copied: [SensorFrame] = []
var written = 0
while written < scans {
    let n = min(refill, scans - written)
    var batch: [SensorFrame] = []
    batch.reserveCapacity(n + 8)
    for k in 0..<n {
        let s = k * 6
        batch.append(.motion(MotionFrame(
            uptime: Double(written + k) * 1e-4,
            accelerometer: Vector3(x: Double(raw[s]) * accelerometerScale, y: Double(raw[s + 1]) * accelerometerScale, z: Double(raw[s + 2]) * accelerometerScale),
            gyro: Vector3(x: Double(raw[s + 3]) * gyroScale, y: Double(raw[s + 4]) * gyroScale, z: Double(raw[s + 5]) * gyroScale))))
    }
    ring.deliver(batch)
    written += n
    if copying {
        copied.removeAll(keepingCapacity: true)
        _ = reader.read(into: &copied, maximum: 4096)
        for frame in copied { if case .motion(let m) = frame { sum += m.accelerometer!.x + m.uptime } }
    } else {
        reader.read(maximum: 4096).forEach { frame in
            if case .motion(let m) = frame { sum += m.accelerometer!.x + m.uptime }
            return true
        }
    }
}
print(sum)
