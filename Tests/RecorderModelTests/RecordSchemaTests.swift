import Foundation
import RecorderJSON
import RecorderModel
import Testing

/// The record schema itself, and the typed appenders against it: every line a recorder writes is
/// of the kind it claims, and reads back and is written again byte for byte by the generic writer.
@Suite("The record schema")
struct RecordSchemaTests {
    @Test func theStandardSchemaHoldsEveryKindAndFieldOnce() {
        let schema = RecordSchema.standard
        #expect(schema.kinds.map(\.name) == RecordKind.Standard.allCases.map { "\($0)" })
        #expect(Set(schema.fields.map(\.key)).count == schema.fields.count)
        #expect(schema.fields.count == 42)
        // Every kind but the marker starts with the times and the step path.
        for kind in schema.kinds where kind.name != "marker" { #expect(Array(kind.fields.prefix(3)) == [.uptime, .timestamp, .stepPath], "\(kind.name)") }
        #expect(schema.eventKinds.map(\.name) == ["gap", "discarded", "error"])
        #expect(schema.kinds(recording: "step").map(\.name) == ["step", "bout"])
        #expect(schema.kinds(recording: "soundLevel").map(\.name) == ["soundLevel"])
        #expect(schema.kinds(recording: "gyro").map(\.name) == ["motion"])
    }

    /// Records of every kind as the typed appenders write them, with their optional fields and
    /// without.
    static func typedLines() -> [(kind: String, line: [UInt8])] {
        let path = JSONString("task/step")
        var lines: [(String, [UInt8])] = []
        func add(_ kind: String, _ write: (inout JSONLinesEncoder) -> Void) {
            var e = JSONLinesEncoder()
            write(&e)
            lines.append((kind, e.bytes))
        }
        add("marker") { $0.appendMarker(uptime: 12.5, timestamp: 0, timestampDate: "2026-11-22T01:08:46.679+00:00", stepPath: path) }
        add("motion") { $0.appendMotion(uptime: 12.000000001, timestamp: 0.25, stepPath: path, sensorType: .gyro, vector: Vector3(x: 1, y: -2.5, z: 1e-7)) }
        add("motion") { $0.appendMotion(uptime: 12, timestamp: 0.25, stepPath: nil, sensorType: .userAcceleration, vector: Vector3(x: 0, y: 0, z: 0)) }
        add("attitude") {
            $0.appendAttitude(uptime: 13, timestamp: 1, stepPath: path, attitude: Quaternion(w: 0.5, x: 0.5, y: -0.5, z: 0.5), referenceCoordinate: .northWestUp,
                              heading: 271.5)
        }
        add("attitude") { $0.appendAttitude(uptime: 13, timestamp: 1, stepPath: path, attitude: Quaternion(w: 1, x: 0, y: 0, z: 0), referenceCoordinate: .zUp, heading: nil) }
        add("magneticField") { $0.appendMagneticField(uptime: 14, timestamp: 2, stepPath: path, field: Vector3(x: 20, y: -3, z: 41.25), accuracy: -1) }
        add("location") {
            $0.appendLocation(LocationFix(uptime: 15, fixTime: 1_795_000_000, latitude: 51.5, longitude: -0.12, horizontalAccuracy: 4, verticalAccuracy: 6,
                                          altitude: 11.5, course: 90, speed: 1.25, mode: 3, satellitesUsed: 9),
                              timestamp: 3, stepPath: path, timestampDate: "2026-11-18T08:26:40.000Z", relativeDistance: 1.5, totalDistance: 2, saveCoordinates: true)
        }
        add("location") { $0.appendLocation(LocationFix(uptime: 15, mode: 1), timestamp: 3, stepPath: path, timestampDate: nil, relativeDistance: nil, totalDistance: nil, saveCoordinates: false) }
        add("heartRate") { $0.appendHeartRate(HeartRateMeasurement(uptime: 16, heartRate: 96, contact: true, energyExpended: 4660, rrIntervals: [0.625, 0.5]), timestamp: 4, stepPath: path) }
        add("heartRate") { $0.appendHeartRate(HeartRateMeasurement(uptime: 16, heartRate: 0, contact: false), timestamp: 4, stepPath: nil) }
        add("soundLevel") { $0.appendSoundLevel(SoundLevel(uptime: 17, timeInterval: 0.1, average: -42.5, peak: -160), timestamp: 5, stepPath: path) }
        add("gap") { $0.appendGap(uptime: 18, timestamp: 6, stepPath: path, sensorType: .accelerometer, droppedSamples: 3) }
        add("gap") { $0.appendGap(uptime: 18, timestamp: 6, stepPath: path, sensorType: .soundLevel, droppedSamples: 960, duration: 0.02) }
        add("discarded") { $0.appendDiscarded(uptime: 19, timestamp: 7, stepPath: path, sensorType: .soundLevel, count: 480, duration: 0.01) }
        add("step") { $0.appendStep(uptime: 20, timestamp: 8, stepPath: path, side: .left, strideLength: 1.25) }
        add("step") { $0.appendStep(uptime: 20, timestamp: 8, stepPath: path) }
        add("bout") {
            $0.appendBout(uptime: 21, timestamp: 9, stepPath: path, startUptime: 15.5, steps: 12, cadence: 110,
                          spatial: BoutSpatialMeasures(distance: 7.5, walkingSpeed: 1.3, strideLength: 1.25))
        }
        add("bout") { $0.appendBout(uptime: 21, timestamp: 9, stepPath: path, startUptime: 15.5, steps: 6, cadence: nil) }
        add("error") { $0.appendError(uptime: 22, timestamp: 10, stepPath: path, description: "device lost: \"imu0\"\nretrying") }
        return lines
    }

    @Test func everyTypedLineIsOfItsKindAndIsWrittenAgainByteForByte() throws {
        for (kind, line) in Self.typedLines() {
            let text = String(decoding: line, as: UTF8.self)
            #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A }, "\(text)")
            let record = try JSONLinesDecoder.decode(Array(line.dropLast()))
            #expect(RecordSchema.standard.kind(of: record)?.name == kind, "\(text)")
            var again = JSONLinesEncoder()
            again.appendRecord(record)
            #expect(again.bytes == line, "\(text) written again: \(String(decoding: again.bytes, as: UTF8.self))")
            // An independent reader reads the same fields and values.
            let foundation = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(Set(foundation.keys) == Set(record.presentFields().map(\.key)), "\(text)")
            // The kind's order.
            let order = RecordSchema.standard.kind(of: record)!.fields.map(\.key).filter(foundation.keys.contains)
            #expect(record.presentFields().map(\.key) == order, "\(text)")
        }
    }

    @Test func aRecordOfNoKindKeepsEveryField() throws {
        // A newer recorderd's event with a field of another kind: nothing is dropped on the way.
        let line = Array(#"{"uptime":1,"timestamp":0,"event":"calibrated","sensorType":"gyro","x":1,"errorDescription":"x","steps":3}"#.utf8)
        let record = try JSONLinesDecoder.decode(line)
        #expect(RecordSchema.standard.kind(of: record) == nil)
        var e = JSONLinesEncoder()
        e.appendRecord(record)
        #expect(try JSONLinesDecoder.decode(Array(e.bytes.dropLast())) == record)
        // A record of a kind with a field of another's: its kind's fields, then the other.
        let extra = Array(#"{"uptime":1,"timestamp":0,"sensorType":"gyro","x":1,"y":2,"z":3,"peak":-3}"#.utf8)
        var f = JSONLinesEncoder()
        f.appendRecord(try JSONLinesDecoder.decode(extra))
        #expect(f.bytes == extra + [0x0A])
    }

    @Test func fieldsAreReadAndSetByField() {
        var r = Record()
        #expect(!r.has(.x) && r[.x] == nil)
        r[.x] = .number(1.5)
        r[.steps] = .integer(4)
        r[.contact] = .boolean(false)
        r[.side] = .string("left")
        r[.rrIntervals] = .numbers([0.5])
        #expect(r.x == 1.5 && r.steps == 4 && r.contact == false && r.side == "left" && r.rrIntervals == [0.5])
        r.x = nil
        #expect(!r.has(.x) && r != Record())
        #expect(SensorType.allCases.count == 12)
    }
}

extension RecordSchemaTests {
    /// docs/recorders.md's table of record kinds, as the schema has them (one row a kind).
    static func documentedRows(_ schema: RecordSchema = .standard) -> [String] {
        schema.kinds.map { kind in
            let sensorTypes: String = switch kind.sensorTypes {
            case .none: "—"
            case .any: "any"
            case .only(let types): types.map { "`\($0)`" }.joined(separator: ", ")
            }
            let fields = kind.members.filter { ![RecordField.uptime, .timestamp, .event, .sensorType].contains($0.field) }.map { member -> String in
                if let constant = member.constant { return "`\(member.field.key)`: `\"\(constant)\"`" }
                let unit = member.field.unit.map { " (\($0))" } ?? ""
                return "`\(member.field.key)`\(unit)"
            }
            return "| `\(kind.name)` | \(kind.event.map { "`\($0)`" } ?? "—") | \(sensorTypes) | \(fields.joined(separator: ", ")) |"
        }
    }

    @Test func theDocumentedKindsAreTheSchemas() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let page = try String(contentsOfFile: root + "/docs/recorders.md", encoding: .utf8)
        for row in Self.documentedRows() { #expect(page.contains(row + "\n"), "docs/recorders.md lacks: \(row)") }
    }
}
