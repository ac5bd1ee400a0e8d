import Foundation
import RecorderModel
import Testing

/// The quantised channels' numbers: every raw count of a 16-bit channel, at scales real Linux IIO
/// drivers report, written and read back with the platform's parser (strtod), gives its count.
@Suite("Quantised decimals")
struct QuantizedDecimalTests {
    /// A channel as the IIO backend sees it: `value = (raw + offset) × scale × unitFactor`.
    struct Channel: CustomStringConvertible {
        var name: String
        var scale: Double
        var offset: Double
        /// Device unit → file unit (m/s² → g, gauss → µT).
        var unitFactor: Double
        var description: String { "\(name) scale \(scale) offset \(offset)" }
    }

    static let gravity = 9.80665
    /// Scales as the drivers print them in sysfs.
    static let channels: [Channel] = [
        Channel(name: "st_lsm6dsx accel ±2 g", scale: 0.000598205, offset: 0, unitFactor: 1 / gravity),
        Channel(name: "st_lsm6dsx gyro 250 dps", scale: 0.000152716, offset: 0, unitFactor: 1),
        Channel(name: "inv_mpu6050 accel ±2 g", scale: 0.000598, offset: 0, unitFactor: 1 / gravity),
        Channel(name: "inv_mpu6050 gyro 250 dps", scale: 0.000133090, offset: 0, unitFactor: 1),
        Channel(name: "bmi160 gyro 2000 dps", scale: 0.001065, offset: 3, unitFactor: 1),
        Channel(name: "adxl345 accel", scale: 0.038307, offset: -2, unitFactor: 1 / gravity),
        Channel(name: "st_magn lis3mdl ±4 gauss", scale: 0.000146156, offset: 0, unitFactor: 100),
        Channel(name: "a coarse channel (10 units a count)", scale: 10, offset: 0, unitFactor: 1),
    ]

    func text(_ value: Double, _ format: QuantizedDecimal) -> String {
        var e = JSONLinesEncoder()
        e.appendNumber(value, format)
        return String(decoding: e.bytes, as: UTF8.self)
    }

    /// A JSON number without exponent: `-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?` (no trailing zeros).
    static func isPlainJSONNumber(_ text: String) -> Bool {
        var s = Substring(text)
        if s.first == "-" { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }), whole == "0" || whole.first != "0",
              parts.count <= 2 else { return false }
        if parts.count == 2 {
            let fraction = parts[1]
            return !fraction.isEmpty && fraction.allSatisfy({ $0.isASCII && $0.isNumber }) && fraction.last != "0"
        }
        return true
    }

    @Test(arguments: channels)
    func everyRawCountOfA16BitChannelReadsBackToItself(channel: Channel) throws {
        let quantum = channel.scale * channel.unitFactor
        let format = try #require(QuantizedDecimal(quantum: quantum))
        var quantisedBytes = 0
        var fullBytes = 0
        for raw in Int(Int16.min)...Int(Int16.max) {
            let value = (Double(raw) + channel.offset) * quantum
            let written = text(value, format)
            let parsed = try #require(Double(written), "\(channel): \(written)")
            // In the device's unit, as the issue's reader computes it, in double and in single precision.
            let count = (parsed / channel.unitFactor / channel.scale).rounded() - channel.offset
            let countSingle = (Float(parsed / channel.unitFactor) / Float(channel.scale)).rounded() - Float(channel.offset)
            if count != Double(raw) || countSingle != Float(raw) || !Self.isPlainJSONNumber(written) {
                Issue.record("\(channel): raw \(raw) written \(written) reads back \(count) (single \(countSingle))")
                return
            }
            // Never longer than the shortest round trip of the Double.
            var full = JSONLinesEncoder()
            full.appendNumber(value)
            #expect(written.utf8.count <= full.bytes.count, "\(channel): raw \(raw) \(written) vs \(String(decoding: full.bytes, as: UTF8.self))")
            quantisedBytes += written.utf8.count
            fullBytes += full.bytes.count
        }
        // Real scales give 16–17 significant digits in full for most counts; the counts need 5–7.
        if channel.scale < 1 {
            #expect(Double(quantisedBytes) < 0.7 * Double(fullBytes), "\(channel): \(quantisedBytes) bytes against \(fullBytes)")
        }
    }

    @Test func edgesAndFallbacks() throws {
        let f = try #require(QuantizedDecimal(quantum: 0.000598205 / Self.gravity))
        #expect(text(0, f) == "0")
        #expect(text(-0.0, f) == "0")
        #expect(text(1000 * 0.000598205 / Self.gravity, f) == "0.061")
        #expect(text(-1000 * 0.000598205 / Self.gravity, f) == "-0.061")
        // Not finite, or beyond 10¹⁴ counts: written in full (null for non-finite).
        #expect(text(.nan, f) == "null")
        #expect(text(.infinity, f) == "null")
        #expect(text(1e20, f) == "1e+20")
        // A quantum above one: whole numbers with trailing zeros.
        let coarse = try #require(QuantizedDecimal(quantum: 250))
        #expect(text(250 * 12, coarse) == "3000")
        #expect(text(250 * 7, coarse) == "1800")  // 1,750 ± 112: 1,800 has fewer digits
        // Quanta outside the range, or not numbers, have no format.
        for bad in [0, -1, 1e-13, 1e13, .nan, .infinity] as [Double] {
            #expect(QuantizedDecimal(quantum: bad) == nil, "\(bad)")
        }
        #expect(QuantizedVector(quanta: Vector3(x: 1, y: 0, z: 1)) == nil)
    }

    /// A motion record with quantised axes: the decimal of each axis, the rest as before.
    @Test func motionRecordWithQuantizedAxes() throws {
        let q = 0.000598205 / Self.gravity
        let formats = try #require(QuantizedVector(quanta: Vector3(x: q, y: q, z: q)))
        var e = JSONLinesEncoder()
        e.appendMotion(uptime: 12.5, timestamp: 0.25, stepPath: nil, sensorType: .accelerometer,
                       vector: Vector3(x: 16384 * q, y: -3 * q, z: 0), quantized: formats)
        #expect(String(decoding: e.bytes, as: UTF8.self) == #"{"uptime":12.5,"timestamp":0.25,"sensorType":"accelerometer","x":0.9994,"y":-0.0002,"z":0}"# + "\n")
    }

    /// A mount matrix that swaps and flips axes keeps whole counts (permuted); one that mixes
    /// axes does not.
    @Test func mountMatricesAndQuanta() {
        let quanta = Vector3(x: 1, y: 2, z: 3)
        let swap = MountMatrix(rows: Vector3(x: 0, y: -1, z: 0), Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 0, z: -1))
        #expect(swap.permutedQuanta(quanta) == Vector3(x: 2, y: 1, z: 3))
        #expect(MountMatrix.identity.permutedQuanta(quanta) == quanta)
        let s = 0.5.squareRoot()
        let mixed = MountMatrix(rows: Vector3(x: s, y: -s, z: 0), Vector3(x: s, y: s, z: 0), Vector3(x: 0, y: 0, z: 1))
        #expect(mixed.permutedQuanta(quanta) == nil)
    }
}
