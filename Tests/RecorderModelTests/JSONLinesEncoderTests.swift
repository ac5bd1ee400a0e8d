import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

@Suite("JSON-lines encoding")
struct JSONLinesEncoderTests {
    func lines(_ encoder: JSONLinesEncoder) -> [String] {
        String(decoding: encoder.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func motionRecordHasFixedKeyOrder() {
        var e = JSONLinesEncoder()
        e.appendMotion(uptime: 12.5, timestamp: 0.25, stepPath: JSONString("walk/walking.outbound"), sensorType: .accelerometer,
                       vector: Vector3(x: 0.1, y: -1, z: 1e-7))
        #expect(lines(e) == [#"{"uptime":12.5,"timestamp":0.25,"stepPath":"walk/walking.outbound","sensorType":"accelerometer","x":0.1,"y":-1,"z":1e-07}"#, ""])
    }

    /// Times to the nanosecond: what a clock or an IIO timestamp gave, without the binary
    /// fraction's tail (`0.009999999999990905` was written for a 10 ms timestamp); negative
    /// (pre-roll) and whole times too; beyond 10⁹ s or not finite, as any number.
    @Test func timesAreWrittenToTheNanosecond() throws {
        let cases: [(Double, String)] = [
            (1000.01 - 1000, "0.01"), (77185.101523762, "77185.101523762"), (-0.25, "-0.25"), (3, "3"), (0, "0"),
            (-0.0000000004, "0"), (0.0000000006, "0.000000001"), (12.999999999_9, "13"), (1e9, "1000000000"), (.nan, "null"),
        ]
        for (time, text) in cases {
            var e = JSONLinesEncoder()
            e.appendMotion(uptime: time, timestamp: -time, stepPath: nil, sensorType: .gyro, vector: Vector3(x: 0, y: 0, z: 0))
            let line = String(decoding: e.bytes, as: UTF8.self)
            let negated = text == "0" || text == "null" ? text : text.hasPrefix("-") ? String(text.dropFirst()) : "-" + text
            #expect(line.hasPrefix(#"{"uptime":\#(text),"timestamp":\#(negated),"sensorType":"gyro""#), "\(time): \(line)")
        }
        // Every nanosecond count of the first 10 s of a day's uptime reads back to itself.
        for k in stride(from: Int64(86_400_000_000_000), to: 86_410_000_000_000, by: 999_983) {
            var e = JSONLinesEncoder()
            e.appendMotion(uptime: Double(k) * 1e-9, timestamp: 0, stepPath: nil, sensorType: .gyro, vector: Vector3(x: 0, y: 0, z: 0))
            let record = try JSONLinesDecoder.decode(Array(e.bytes.dropLast()))
            #expect(Int64((try #require(record.uptime) * 1e9).rounded()) == k)
        }
    }

    /// SageResearch's device-motion records: the attitude quaternion with its frame and heading,
    /// the calibrated field with its accuracy; each decodes back to the same values and re-encodes
    /// to the same line.
    @Test func deviceMotionRecords() throws {
        var e = JSONLinesEncoder()
        e.appendAttitude(uptime: 7, timestamp: 0.5, stepPath: JSONString("t"), attitude: Quaternion(w: 0.5, x: -0.5, y: 0.5, z: 0.5),
                         referenceCoordinate: .northWestUp, heading: 271.25)
        e.appendAttitude(uptime: 8, timestamp: 1.5, stepPath: nil, attitude: .identity, referenceCoordinate: .zUp, heading: nil)
        e.appendMagneticField(uptime: 9, timestamp: 2.5, stepPath: JSONString("t"), field: Vector3(x: 20, y: -0.5, z: -40), accuracy: 2)
        e.appendMotion(uptime: 9, timestamp: 2.5, stepPath: JSONString("t"), sensorType: .userAcceleration, vector: Vector3(x: 0, y: 0.25, z: -0.125))
        let expected = [
            #"{"uptime":7,"timestamp":0.5,"stepPath":"t","sensorType":"attitude","x":-0.5,"y":0.5,"z":0.5,"w":0.5,"referenceCoordinate":"North-West-Up","heading":271.25}"#,
            #"{"uptime":8,"timestamp":1.5,"sensorType":"attitude","x":0,"y":0,"z":0,"w":1,"referenceCoordinate":"Z-Up"}"#,
            #"{"uptime":9,"timestamp":2.5,"stepPath":"t","sensorType":"magneticField","x":20,"y":-0.5,"z":-40,"eventAccuracy":2}"#,
            #"{"uptime":9,"timestamp":2.5,"stepPath":"t","sensorType":"userAcceleration","x":0,"y":0.25,"z":-0.125}"#,
        ]
        #expect(lines(e) == expected + [""])
        for line in expected {
            let record = try JSONDecoder().decode(Record.self, from: Data(line.utf8))
            var again = JSONLinesEncoder()
            again.appendRecord(record)
            #expect(lines(again) == [line, ""])
        }
    }

    @Test func gapAndMarker() {
        var e = JSONLinesEncoder()
        e.appendMarker(uptime: 3, timestamp: 0, timestampDate: "2026-01-02T03:04:05.006+00:00", stepPath: JSONString("t"))
        e.appendGap(uptime: 4, timestamp: 1, stepPath: JSONString("t"), sensorType: .gyro, droppedSamples: 17)
        e.appendGap(uptime: 5, timestamp: 2, stepPath: JSONString("t"), sensorType: .soundLevel, droppedSamples: 24000, duration: 0.5)
        e.appendDiscarded(uptime: 6, timestamp: 3, stepPath: JSONString("t"), sensorType: .soundLevel, count: 960, duration: 0.02)
        #expect(lines(e) == [
            #"{"uptime":3,"timestamp":0,"timestampDate":"2026-01-02T03:04:05.006+00:00","stepPath":"t"}"#,
            #"{"uptime":4,"timestamp":1,"stepPath":"t","event":"gap","sensorType":"gyro","droppedSamples":17}"#,
            #"{"uptime":5,"timestamp":2,"stepPath":"t","event":"gap","sensorType":"soundLevel","droppedSamples":24000,"duration":0.5}"#,
            #"{"uptime":6,"timestamp":3,"stepPath":"t","event":"discarded","sensorType":"soundLevel","droppedSamples":960,"duration":0.02}"#, ""])
    }

    /// Numbers are written as `description` writes them (shortest round-trip text), without the
    /// String it would allocate.
    @Test func numbersAreWrittenAsTheirDescription() {
        var generator = SplitMix(seed: 1005)
        var values: [Double] = [0.1, -0.05085322578046536, 1e-7, 1.7976931348623157e308, Double.leastNonzeroMagnitude, 123456.789, -2.5e-300, 1e15 + 0.5]
        for _ in 0..<2000 { values.append(Double(bitPattern: generator.next()) ) }
        for v in values where v.isFinite && v != v.rounded(.towardZero) {
            var e = JSONLinesEncoder()
            e.appendNumber(v)
            #expect(String(decoding: e.bytes, as: UTF8.self) == v.description)
        }
    }

    @Test func numbersRoundTripExactly() throws {
        var generator = SplitMix(seed: 1006)
        var e = JSONLinesEncoder()
        var expected: [Vector3] = []
        for _ in 0..<2000 {
            let v = Vector3(x: Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &generator) ? 1 : -1),
                            y: Double.random(in: -20...20, using: &generator), z: Double(Int.random(in: -1_000_000...1_000_000, using: &generator)))
            expected.append(v)
            e.appendMotion(uptime: Double.random(in: 0...1e7, using: &generator), timestamp: Double.random(in: -30...3600, using: &generator), stepPath: nil, sensorType: .gyro, vector: v)
        }
        let decoder = JSONDecoder()
        let decoded = try lines(e).dropLast().map { try decoder.decode(Record.self, from: Data($0.utf8)) }
        #expect(decoded.count == expected.count)
        for (r, v) in zip(decoded, expected) {
            #expect(r.x == v.x && r.y == v.y && r.z == v.z)
        }
    }

    @Test func decodedRecordsReencodeToTheSameLine() throws {
        var e = JSONLinesEncoder()
        e.appendMarker(uptime: 3.25, timestamp: 0, timestampDate: "2026-01-02T03:04:05.006+00:00", stepPath: JSONString("t/a \"b\""))
        e.appendMotion(uptime: 3.5, timestamp: 0.25, stepPath: JSONString("t/a"), sensorType: .gyro, vector: Vector3(x: 1e-300, y: -0.1, z: 7))
        e.appendGap(uptime: 4, timestamp: 0.75, stepPath: nil, sensorType: .accelerometer, droppedSamples: 3)
        e.appendError(uptime: 5, timestamp: 1.75, stepPath: JSONString("t"), description: "gone\n")
        e.appendDiscarded(uptime: 5.5, timestamp: 2.25, stepPath: JSONString("t"), sensorType: .soundLevel, count: 960, duration: 0.02)
        e.appendGap(uptime: 5.75, timestamp: 2.5, stepPath: JSONString("t"), sensorType: .soundLevel, droppedSamples: 4800, duration: 0.1)
        e.appendBout(uptime: 9, timestamp: 5, stepPath: JSONString("t"), startUptime: 2, steps: 12, cadence: 102.5,
                     spatial: BoutSpatialMeasures(distance: 8.5, walkingSpeed: 1.2, strideLength: 1.4))
        e.appendSoundLevel(SoundLevel(uptime: 6, timeInterval: 1, average: -30.5, peak: -3), timestamp: 2.75, stepPath: nil)
        e.appendLocation(LocationFix(uptime: 7, latitude: 1.5, longitude: 2.5, horizontalAccuracy: 4, altitude: 12, course: 90, speed: 1.25, mode: 3, satellitesUsed: 9),
                         timestamp: 3.75, stepPath: JSONString("t"), timestampDate: "2026-01-02T03:04:06.000+00:00",
                         relativeDistance: 1, totalDistance: 10, saveCoordinates: true)
        e.appendHeartRate(HeartRateMeasurement(uptime: 8, heartRate: 96, contact: true, energyExpended: 4660, rrIntervals: [0.625, 0.623046875]),
                          timestamp: 4.75, stepPath: JSONString("t"))
        e.appendHeartRate(HeartRateMeasurement(uptime: 8.5, heartRate: 0, contact: false), timestamp: 5.25, stepPath: nil)
        e.appendHeartRate(HeartRateMeasurement(uptime: 9, heartRate: 300), timestamp: 5.75, stepPath: nil)
        e.appendGap(uptime: 20, timestamp: 16.75, stepPath: nil, sensorType: .heartRate, droppedSamples: 10, duration: 11.25)
        for line in lines(e).dropLast() {
            var again = JSONLinesEncoder()
            again.appendRecord(try JSONDecoder().decode(Record.self, from: Data(line.utf8)))
            #expect(String(decoding: again.bytes, as: UTF8.self) == line + "\n")
        }
    }

    @Test func nonFiniteNumbersAreNull() throws {
        var e = JSONLinesEncoder()
        e.appendMotion(uptime: 1, timestamp: 0, stepPath: nil, sensorType: .magnetometer, vector: Vector3(x: .nan, y: .infinity, z: -.infinity))
        let text = String(decoding: e.bytes, as: UTF8.self)
        #expect(!text.contains("nan") && !text.contains("inf"))
        #expect(text.contains(#""x":null,"y":null,"z":null"#))
        _ = try JSONSerialization.jsonObject(with: Data(e.bytes))
    }

    @Test func stringsAreEscaped() throws {
        let nasty = "a\"b\\c\nd\re\tf\u{1}g\u{7f}h/ü€😀"
        var e = JSONLinesEncoder()
        e.appendMarker(uptime: 1, timestamp: 0, timestampDate: "x", stepPath: JSONString(nasty))
        e.appendError(uptime: 1, timestamp: 0, stepPath: nil, description: nasty)
        let all = lines(e)
        #expect(all.count == 3)
        let marker = try JSONDecoder().decode(Record.self, from: Data(all[0].utf8))
        let error = try JSONDecoder().decode(Record.self, from: Data(all[1].utf8))
        #expect(marker.stepPath == nasty)
        #expect(error.errorDescription == nasty)
        #expect(marker.isMarker && !marker.isSample)
    }

    @Test func locationOmitsUnsetValuesAndCoordinatesUnlessAsked() throws {
        var e = JSONLinesEncoder()
        let fix = LocationFix(uptime: 5, latitude: 52.1, longitude: 4.3, horizontalAccuracy: 3, speed: .nan, mode: 3, satellitesUsed: 7)
        e.appendLocation(fix, timestamp: 1, stepPath: nil, timestampDate: nil, relativeDistance: nil, totalDistance: 0, saveCoordinates: false)
        let text = String(decoding: e.bytes, as: UTF8.self)
        #expect(text == #"{"uptime":5,"timestamp":1,"sensorType":"location","horizontalAccuracy":3,"totalDistance":0,"mode":"3D","satellitesUsed":7}"# + "\n")
        e.removeAll()
        e.appendLocation(fix, timestamp: 1, stepPath: nil, timestampDate: nil, relativeDistance: nil, totalDistance: nil, saveCoordinates: true)
        #expect(String(decoding: e.bytes, as: UTF8.self).contains(#""latitude":52.1,"longitude":4.3"#))
    }

    @Test func timestampsHaveMillisecondsAndOffset() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.1234)
        #expect(ISO8601Timestamp.string(from: date) == "2023-11-14T22:13:20.123+00:00")
        #expect(ISO8601Timestamp.compactString(from: date) == "20231114T221320Z")
        #expect(ISO8601Timestamp.date(from: "2023-11-14T22:13:20.123+00:00")!.timeIntervalSince1970 == 1_700_000_000.123)
    }
}

@Suite("JSON-RPC requests")
struct JSONRPCRequestTests {
    func parse(_ s: String) -> Result<JSONRPCRequest, RequestParseError> {
        Result { () throws(RequestParseError) in try JSONRPCRequest.parse(line: Array(s.utf8)) }
    }

    @Test func validRequest() throws {
        let r = try parse(#"{"jsonrpc":"2.0","id":7,"method":"step.start","params":{"stepPath":"a"}}"#).get()
        #expect(r.id == .number("7"))
        #expect(r.method == "step.start")
        #expect(r.params?["stepPath"] == .string("a"))
        #expect(ControlMethod(rawValue: r.method) == .stepStart)
    }

    @Test(arguments: [
        ("{", -32700, JSONRPCID.null),
        ("\u{ff}\u{fe}", -32700, .null),
        ("[1,2]", -32600, .null),
        ("42", -32600, .null),
        (#"{"jsonrpc":"1.0","id":"x","method":"a"}"#, -32600, .string("x")),
        (#"{"jsonrpc":"2.0","id":3}"#, -32600, .number("3")),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"a"}"#, -32600, .null),
        (#"{"jsonrpc":"2.0","id":4,"method":"a","params":5}"#, -32602, .number("4")),
    ])
    func badRequests(line: String, code: Int, id: JSONRPCID) {
        guard case .failure(let e) = parse(line) else {
            Issue.record("parsed \(line)")
            return
        }
        #expect(e.error.code == code)
        #expect(e.id == id)
    }
}
