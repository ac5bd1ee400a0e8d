@testable import RecorderModel
import RecorderTestSupport
import Testing

/// The encoder copies a record's prefix (times and step path) from the record before when they
/// are the same (a scan's other sensor types): every line must be what an encoder that wrote the
/// record alone gives, whatever came before it.
@Suite("JSON-lines encoding: shared prefixes and digit writers")
struct JSONLinesEncoderPrefixTests {
    enum Kind: CaseIterable { case motion, attitude, field, gap, step, marker, scan }

    /// A scan's records in one call (`appendMotions`): the accelerometer quantised, no
    /// magnetometer in the frame, the gyro in full.
    static let scanFrame = MotionFrame(uptime: 1, accelerometer: Vector3(x: 0.0012 * 817, y: -0.0012 * 3, z: 9.80665),
                                       gyro: Vector3(x: 0.25, y: -1e-3, z: 0))
    static let scanTypes: [SensorType] = [.accelerometer, .magnetometer, .gyro]
    static let scanFormats: [QuantizedVector?] = [QuantizedVector(quanta: Vector3(x: 0.0012, y: 0.0012, z: 0.0012)), nil, nil]

    static func append(_ kind: Kind, uptime: Double, timestamp: Double, path: JSONString?, to e: inout JSONLinesEncoder) {
        switch kind {
        case .motion:
            e.appendMotion(uptime: uptime, timestamp: timestamp, stepPath: path, sensorType: .gyro, vector: Vector3(x: 0.5, y: -2, z: 1e-3))
        case .attitude:
            e.appendAttitude(uptime: uptime, timestamp: timestamp, stepPath: path, attitude: Quaternion(w: 1, x: 0, y: 0, z: 0),
                             referenceCoordinate: .zUp, heading: nil)
        case .field:
            e.appendMagneticField(uptime: uptime, timestamp: timestamp, stepPath: path, field: Vector3(x: 20, y: -5, z: 41.5), accuracy: 2)
        case .gap:
            e.appendGap(uptime: uptime, timestamp: timestamp, stepPath: path, sensorType: .accelerometer, droppedSamples: 3)
        case .step:
            e.appendStep(uptime: uptime, timestamp: timestamp, stepPath: path)
        case .marker:  // the same times, written without a prefix to share
            e.appendMarker(uptime: uptime, timestamp: timestamp, timestampDate: "2026-11-24T12:00:00.000+00:00",
                           stepPath: path ?? JSONString("walk"))
        case .scan:
            let written = scanTypes.withUnsafeBufferPointer { types in
                scanFormats.withUnsafeBufferPointer { formats in
                    e.appendMotions(uptime: uptime, timestamp: timestamp, stepPath: path, frame: scanFrame, types: types, formats: formats)
                }
            }
            #expect(written == 2)
        }
    }

    static func alone(_ kind: Kind, uptime: Double, timestamp: Double, path: JSONString?) -> [UInt8] {
        var e = JSONLinesEncoder()
        if kind == .scan {  // what the records are one by one
            e.appendMotion(uptime: uptime, timestamp: timestamp, stepPath: path, sensorType: .accelerometer, vector: scanFrame.accelerometer!,
                           quantized: scanFormats[0])
            e.appendMotion(uptime: uptime, timestamp: timestamp, stepPath: path, sensorType: .gyro, vector: scanFrame.gyro!)
            return e.bytes
        }
        append(kind, uptime: uptime, timestamp: timestamp, path: path, to: &e)
        return e.bytes
    }

    @Test func everyRecordIsWhatItWouldBeAlone() {
        let walk = JSONString("walk/walking.outbound")
        let paths: [JSONString?] = [
            nil, walk, JSONString("walk/walking.outbound"),  // equal to `walk`, other storage
            JSONString("walk/walking.return"), JSONString("walk/walking.outbounD"),  // same length, one byte differs
            JSONString(String(repeating: "long/", count: 150)),  // too long to be copied through the scratch
        ]
        let uptimes = [77185.101523762, 77185.101523762.nextUp, 77185.2, -0.5, .nan]
        var random = SplitMix(seed: 1001)
        var e = JSONLinesEncoder()
        var expected: [UInt8] = []
        for round in 0..<5_000 {
            let kind = Kind.allCases.randomElement(using: &random)!
            let uptime = uptimes.randomElement(using: &random)!
            // Mostly the same times and path as the record before: the shared case.
            let timestamp = Bool.random(using: &random) ? 0.25 : uptime - 77185
            let path = paths.randomElement(using: &random)!
            Self.append(kind, uptime: uptime, timestamp: timestamp, path: path, to: &e)
            expected += Self.alone(kind, uptime: uptime, timestamp: timestamp, path: path)
            switch round % 97 {
            case 13:  // the bytes taken: a prefix must not be copied from before them
                #expect(String(decoding: e.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
                e.removeAll()
                expected.removeAll()
            case 41:  // the last newline removed (a record embedded in an array)
                e.removeLastNewline()
                expected.removeLast()
            default: break
            }
        }
        #expect(String(decoding: e.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(!expected.isEmpty)
    }

    /// Records of one instant share the prefix; a different time or path is written anew.
    @Test func recordsOfAScan() {
        var e = JSONLinesEncoder()
        let path = JSONString("a")
        e.appendMotion(uptime: 1.5, timestamp: 0.5, stepPath: path, sensorType: .accelerometer, vector: Vector3(x: 1, y: 2, z: 3))
        e.appendMotion(uptime: 1.5, timestamp: 0.5, stepPath: path, sensorType: .gyro, vector: Vector3(x: 4, y: 5, z: 6))
        e.appendMotion(uptime: 1.5, timestamp: 0.5, stepPath: JSONString("b"), sensorType: .gyro, vector: Vector3(x: 4, y: 5, z: 6))
        e.appendMotion(uptime: 1.5, timestamp: 0.25, stepPath: JSONString("b"), sensorType: .gyro, vector: Vector3(x: 4, y: 5, z: 6))
        #expect(String(decoding: e.bytes, as: UTF8.self) == """
            {"uptime":1.5,"timestamp":0.5,"stepPath":"a","sensorType":"accelerometer","x":1,"y":2,"z":3}
            {"uptime":1.5,"timestamp":0.5,"stepPath":"a","sensorType":"gyro","x":4,"y":5,"z":6}
            {"uptime":1.5,"timestamp":0.5,"stepPath":"b","sensorType":"gyro","x":4,"y":5,"z":6}
            {"uptime":1.5,"timestamp":0.25,"stepPath":"b","sensorType":"gyro","x":4,"y":5,"z":6}

            """)
    }

    /// After the bytes are taken, the last prefix's place holds other text (a marker longer than
    /// where the prefix was): the next record of the same instant and path writes its prefix again.
    @Test func noPrefixIsCopiedFromBytesTaken() {
        let path = JSONString("walk/walking.outbound")
        var e = JSONLinesEncoder()
        e.appendStep(uptime: 3, timestamp: 1, stepPath: path)
        e.appendMotion(uptime: 5.25, timestamp: 2.5, stepPath: path, sensorType: .gyro, vector: Vector3(x: 1, y: 2, z: 3))
        e.removeAll()
        e.appendMarker(uptime: 9, timestamp: 7, timestampDate: "2026-11-24T12:00:00.000+00:00", stepPath: JSONString(String(repeating: "other/", count: 40)))
        e.appendMotion(uptime: 5.25, timestamp: 2.5, stepPath: path, sensorType: .accelerometer, vector: Vector3(x: 1, y: 2, z: 3))
        var marker = JSONLinesEncoder()
        marker.appendMarker(uptime: 9, timestamp: 7, timestampDate: "2026-11-24T12:00:00.000+00:00", stepPath: JSONString(String(repeating: "other/", count: 40)))
        var accelerometer = JSONLinesEncoder()
        accelerometer.appendMotion(uptime: 5.25, timestamp: 2.5, stepPath: path, sensorType: .accelerometer, vector: Vector3(x: 1, y: 2, z: 3))
        #expect(String(decoding: e.bytes, as: UTF8.self) == String(decoding: marker.bytes + accelerometer.bytes, as: UTF8.self))
    }

    /// The integer writer against the standard library's description, over every digit count
    /// and both extremes.
    @Test func integersAsTheirDescription() {
        var values: [Int64] = [0, 1, -1, 9, 10, 99, 100, 9_999, 10_000, 99_999_999, 100_000_000, .max, .min, .max - 1, .min + 1]
        var p: Int64 = 1
        for _ in 0..<18 {
            p *= 10
            values += [p - 1, p, p + 1, -p, -(p - 1)]
        }
        var random = SplitMix(seed: 1002)
        values += (0..<10_000).map { _ in Int64.random(in: .min ... .max, using: &random) >> Int64.random(in: 0...63, using: &random) }
        for v in values {
            var e = JSONLinesEncoder()
            e.appendInteger(Int(v))
            #expect(String(decoding: e.bytes, as: UTF8.self) == v.description)
        }
    }

    /// `digits × 10^exponent` against the same decimal made by string arithmetic.
    @Test func decimalsAsPlainNumbers() {
        func reference(_ digits: Int64, _ exponent: Int) -> String {
            if digits == 0 { return "0" }
            var text = String(digits.magnitude)
            if exponent >= 0 {
                text += String(repeating: "0", count: exponent)
            } else {
                let fraction = -exponent
                if text.count <= fraction { text = String(repeating: "0", count: fraction + 1 - text.count) + text }
                text.insert(".", at: text.index(text.endIndex, offsetBy: -fraction))
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            return (digits < 0 ? "-" : "") + text
        }
        var random = SplitMix(seed: 1003)
        var cases: [(Int64, Int)] = [(0, -3), (5, -1), (50, -1), (-1800, 0), (12, 2), (1, -13), (Int64.max, -13), (Int64.min + 1, -5), (100, -2)]
        for _ in 0..<20_000 {
            let digits = Int64.random(in: -999_999_999_999 ... 999_999_999_999, using: &random) >> Int64.random(in: 0...39, using: &random)
            cases.append((digits, Int.random(in: -13...14, using: &random)))
        }
        for (digits, exponent) in cases {
            let text = RecordScratch.withText { $0.putDecimal(digits, exponent: exponent) }
            #expect(text == reference(digits, exponent), "\(digits)e\(exponent)")
        }
    }

    /// Times against the text string arithmetic makes of their nanosecond count: whole seconds of
    /// every length (to 10⁹, beyond which any number's text is used), decimals with every number
    /// of trailing zeros, both signs.
    @Test func timesAsTheirNanoseconds() {
        func reference(_ nanoseconds: Int64) -> String {
            let magnitude = nanoseconds.magnitude
            var text = String(magnitude / 1_000_000_000)
            var fraction = String(magnitude % 1_000_000_000)
            if fraction != "0" {
                fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
                while fraction.hasSuffix("0") { fraction.removeLast() }
                text += "." + fraction
            }
            return (nanoseconds < 0 ? "-" : "") + text
        }
        var random = SplitMix(seed: 1004)
        var seconds: [Double] = [0, 1e-9, -1e-9, 0.1, 0.12345678, 0.123456789, 99_999_999.5, 100_000_000.25, 999_999_999.875, 86_400.000_000_001]
        for _ in 0..<20_000 {
            var nanoseconds = Int64.random(in: 0..<999_999_999_000_000_000, using: &random) >> Int64.random(in: 0...59, using: &random)
            var power: Int64 = 1
            for _ in 0..<Int.random(in: 0...9, using: &random) { power *= 10 }
            nanoseconds -= nanoseconds % power
            seconds.append(Double(nanoseconds) / 1e9 * (Bool.random(using: &random) ? 1 : -1))
        }
        for s in seconds {
            // The nanoseconds putTime writes (half away from zero); a `Double` above ~10⁷ s holds
            // fewer than nine decimals, so the reference starts from the same count.
            let nanoseconds = Int64((s * 1e9).rounded(.toNearestOrAwayFromZero))
            let text = RecordScratch.withText { $0.putTime(s) }
            #expect(text == reference(nanoseconds), "\(s)")
        }
    }
}

extension RecordScratch {
    /// What `body` writes into a scratch, as text (tests).
    static func withText(_ body: (inout RecordScratch) -> Void) -> String {
        var bytes: [UInt8] = []
        with { w in
            body(&w)
            w.flush(into: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
