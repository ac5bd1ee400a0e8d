// Instruction counts of the web page's live plot messages (scripts/count-instructions.sh builds
// this with LivePoints.swift and the RecorderModel sources and runs it under callgrind): N
// notifications of 5 accelerometer + 5 gyro records (what the page gets in 0.2 s at 25 Hz a type)
// written as the page's JSON text by LivePoints, or, the peer, by Foundation's JSONEncoder from
// the same values (an array of [name, uptime, x, y, z] arrays of a Codable enum).
// Usage: live ours|foundation N
import Foundation

enum Cell: Encodable {
    case text(String)
    case number(Double)

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .text(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        }
    }
}

struct Message: Encodable {
    var type = "data"
    var points: [[Cell]]
}

var batch: [Record] = []
for i in 0..<10 {
    var r = Record()
    r.uptime = 77185.101523762 + Double(i / 2) * 0.04
    r.sensorType = i % 2 == 0 ? "accelerometer" : "gyro"
    r.x = 0.0123456789 * Double(i)
    r.y = -0.98765432 + Double(i) * 1e-3
    r.z = 0.5 / Double(i + 1)
    batch.append(r)
}
let side = CommandLine.arguments[1]
let n = Int(CommandLine.arguments[2])!
var bytes = 0
for k in 0..<n {
    batch[0].uptime = 77185.1 + Double(k)
    if side == "ours" {
        bytes += LivePoints.encode(batch).utf8.count
    } else {
        let points = batch.map { r in [Cell.text(r.sensorType!), .number(r.uptime!), .number(r.x!), .number(r.y!), .number(r.z!)] }
        bytes += try! JSONEncoder().encode(Message(points: points)).count
    }
}
print(bytes)
