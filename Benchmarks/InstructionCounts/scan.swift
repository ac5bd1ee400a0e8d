// Instruction counts of writing one IIO scan as JSON lines (scripts/count-instructions.sh builds
// this with the RecorderModel sources and runs it under callgrind): an accelerometer and a
// gyroscope record per scan, as a recording writes them (uptime, timestamp, step path), with
// values of s16 counts at st_lsm6dsx's scales (±2 g, 250 dps) following a walk-like motion.
// `quantised`: each axis the shortest decimal giving its count back (QuantizedDecimal), as
// recorderd writes an IIO device's channels; `full`: the shortest round trip of the Double.
// `fused`: those two quantised and the four fused types' records (attitude, gravity, user
// acceleration, rotation rate: full numbers), as a recording of device motion writes a scan.
// `none`: the values made and nothing written (the harness's own cost, subtracted).
// Usage: scan quantised|full|fused|none N
import Foundation

let accelQuantum = 0.000598205 / 9.80665
let gyroQuantum = 0.000152716
let side = CommandLine.arguments[1]
let n = Int(CommandLine.arguments[2])!
let accel = QuantizedVector(quanta: Vector3(x: accelQuantum, y: accelQuantum, z: accelQuantum))!
let gyro = QuantizedVector(quanta: Vector3(x: gyroQuantum, y: gyroQuantum, z: gyroQuantum))!
let path = JSONString("walk/walking.outbound")
var encoder = JSONLinesEncoder()
var noise: UInt64 = 0x9E37_79B9_7F4A_7C15
func count(_ value: Double) -> Double {
    noise = noise &* 6364136223846793005 &+ 1442695040888963407
    return (value + Double(Int64(noise >> 60)) - 8).rounded()
}
var bytes = 0
let start = 77185.101523762
for k in 0..<n {
    let t = Double(k) * 0.001
    let uptime = start + t
    let phase = 2 * Double.pi * 1.8 * t
    let a = Vector3(x: count(16393 + 3000 * sin(phase)), y: count(800 * cos(phase)), z: count(-1200 + 500 * sin(2 * phase))) * accelQuantum
    let g = Vector3(x: count(900 * sin(phase)), y: count(-2500 * cos(phase)), z: count(300 * sin(0.5 * phase))) * gyroQuantum
    if side == "none" {
        bytes &+= Int(a.x + a.y + a.z + g.x + g.y + g.z)
        continue
    }
    let quantised = side != "full"
    encoder.appendMotion(uptime: uptime, timestamp: t, stepPath: path, sensorType: .accelerometer, vector: a, quantized: quantised ? accel : nil)
    encoder.appendMotion(uptime: uptime, timestamp: t, stepPath: path, sensorType: .gyro, vector: g, quantized: quantised ? gyro : nil)
    if side == "fused" {
        // Fused values as a filter gives them: full doubles (derived from the same counts).
        let gravity = Vector3(x: a.x * 0.98 + 0.001, y: a.y * 0.97, z: a.z * 0.99 - 0.002)
        let attitude = Quaternion(w: 0.99 + a.z * 1e-3, x: g.x * 1e-2, y: g.y * 1e-2, z: 0.1 + g.z * 1e-3)
        encoder.appendAttitude(uptime: uptime, timestamp: t, stepPath: path, attitude: attitude, referenceCoordinate: .zUp, heading: nil)
        encoder.appendMotion(uptime: uptime, timestamp: t, stepPath: path, sensorType: .gravity, vector: gravity)
        encoder.appendMotion(uptime: uptime, timestamp: t, stepPath: path, sensorType: .userAcceleration, vector: a - gravity)
        encoder.appendMotion(uptime: uptime, timestamp: t, stepPath: path, sensorType: .rotationRate, vector: g * 1.0001)
    }
    if encoder.bytes.count > 60_000 {
        bytes += encoder.bytes.count
        encoder.removeAll()
    }
}
print(bytes + encoder.bytes.count)
