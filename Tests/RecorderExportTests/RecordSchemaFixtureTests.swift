import Foundation
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import Testing

/// The record schema is the one definition of the records: a kind of the test's own (a
/// thermometer), and then a field added to it, appear in the JSON-lines file, the decoder, the
/// CSV, MCAP and Sage exports — read back by their real readers (Python's csv and zipfile, PyPI
/// `mcap`) — without any of those being told of it.
@Suite("One record schema: a fixture kind's fields reach every reader and writer")
struct RecordSchemaFixtureTests {
    /// A thermometer's reading: its temperature, and (added below) its battery.
    static let thermometer = RecordKind("thermometer", sensorTypes: .only(["temperature"]), [
        .init(.uptime), .init(.timestamp), .init(.stepPath), .init(.sensorType, constant: "temperature"),
    ])

    /// The standard schema with the thermometer's kind, its `celsius` field, then `battery` added.
    static func schema() -> (RecordSchema, celsius: RecordField, battery: RecordField) {
        let withKind = RecordSchema(kinds: RecordSchema.standard.kinds + [thermometer])
        let (withCelsius, celsius) = withKind.adding("celsius", .number, unit: "degC", to: "thermometer")
        let (schema, battery) = withCelsius.adding("battery", .integer, unit: "%", to: "thermometer", after: celsius)
        return (schema, celsius, battery)
    }

    /// A run of one thermometer recorder: a marker, three readings and a gap, in `schema`'s form.
    static func makeRun(_ schema: RecordSchema, celsius: RecordField, battery: RecordField) throws -> String {
        let directory = try Fixtures.temporaryDirectory() + "/run"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        var e = JSONLinesEncoder()
        e.appendMarker(uptime: 500, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: start), stepPath: JSONString("t/rest"))
        for (i, temperature) in [36.5, 36.75, 37.125].enumerated() {
            var r = Record()
            r.uptime = 500.5 + Double(i)
            r.timestamp = 0.5 + Double(i)
            r.stepPath = "t/rest"
            r.sensorType = "temperature"
            r[celsius] = .number(temperature)
            r[battery] = .integer(90 - i)
            e.appendRecord(r, schema: schema)
        }
        e.appendGap(uptime: 504, timestamp: 4, stepPath: JSONString("t/rest"), sensorType: .heartRate, droppedSamples: 2)
        try Data(e.bytes).write(to: URL(fileURLWithPath: directory + "/thermo.jsonl"))
        var result = TaskResult(taskIdentifier: "t", taskRunUUID: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, startDate: start,
                                status: .finished)
        result.endDate = start.addingTimeInterval(5)
        result.stepHistory = [StepHistoryEntry(stepPath: "t/rest", startDate: start, startUptime: 500, endDate: start.addingTimeInterval(5), endUptime: 505)]
        var file = FileResult(identifier: "thermo", relativePath: "thermo.jsonl", device: "therm0", startDate: start, startUptime: 500,
                              units: ["temperature": "degC"])
        file.sampleCount = 3
        result.asyncResults = [.file(file)]
        try TaskResult.makeEncoder(pretty: true).encode(result).write(to: URL(fileURLWithPath: directory + "/taskResult.json"))
        return directory
    }

    @Test func theFileAndTheDecoderCarryTheAddedFields() throws {
        let (schema, celsius, battery) = Self.schema()
        let run = try Self.makeRun(schema, celsius: celsius, battery: battery)
        let lines = try String(contentsOfFile: run + "/thermo.jsonl", encoding: .utf8).split(separator: "\n")
        // The kind's order: the prefix, its fixed sensor type, then its fields as added.
        #expect(lines[1] == #"{"uptime":500.5,"timestamp":0.5,"stepPath":"t/rest","sensorType":"temperature","celsius":36.5,"battery":90}"#)
        let read = try JSONLinesDecoder.decode(Array(lines[2].utf8), schema: schema)
        #expect(read[celsius] == .number(36.75) && read[battery] == .integer(89) && schema.kind(of: read)?.name == "thermometer")
        // recorderd's own schema reads the line too (as a newer recorderd's: unknown keys ignored).
        let plain = try JSONLinesDecoder.decode(Array(lines[2].utf8))
        #expect(plain.uptime == 501.5 && plain.sensorType == "temperature" && plain[celsius] == nil)
        // A value of another type is an error naming the key, on either of the decoder's paths.
        #expect(throws: JSONLinesDecoder.Failure.self) { try JSONLinesDecoder.decode(Array(#"{"uptime":1,"battery":"low"}"#.utf8), schema: schema) }
        #expect(throws: JSONLinesDecoder.Failure.self) { try JSONLinesDecoder.decode(Array(#"{"uptime":1,"celsius":[1]}"#.utf8), schema: schema) }
        // Written again from the decoded record: the same line.
        var again = JSONLinesEncoder()
        again.appendRecord(read, schema: schema)
        #expect(String(decoding: again.bytes.dropLast(), as: UTF8.self) == String(lines[2]))
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func theCSVHasAColumnOfEachWithItsUnit() async throws {
        let (schema, celsius, battery) = Self.schema()
        let run = try Self.makeRun(schema, celsius: celsius, battery: battery)
        let output = (run as NSString).deletingLastPathComponent + "/csv"
        let report = try CSVExporter().export(try RunSource(directory: run, schema: schema), to: output)
        #expect(report.records == 5)
        // Python's csv module reads the table.
        let p = try await ChildProcess("/usr/bin/env", ["python3", "-c", """
            import csv, json, sys
            print(json.dumps(list(csv.DictReader(open(sys.argv[1])))))
            """, output + "/thermo.csv"])
        #expect(try await p.wait(timeout: 60) == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(p.printed.utf8)) as? [[String: String]])
        #expect(rows.map { $0["celsius"] } == ["36.5", "36.75", "37.125"] && rows.map { $0["battery"] } == ["90", "89", "88"], "\(rows)")
        let readme = try String(contentsOfFile: output + "/README.md", encoding: .utf8)
        #expect(readme.contains("| celsius | degC |") && readme.contains("| battery | % |"), "\(readme)")
        // The gap goes to the events table, as any recorder's.
        let events = try String(contentsOfFile: output + "/thermo.events.csv", encoding: .utf8)
        #expect(events.contains(",gap,heartRate,2,"), "\(events)")
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func theMCAPSchemaAndMessagesHaveThem() async throws {
        let (schema, celsius, battery) = Self.schema()
        let run = try Self.makeRun(schema, celsius: celsius, battery: battery)
        let output = (run as NSString).deletingLastPathComponent + "/run.mcap"
        _ = try MCAPExporter().export(try RunSource(directory: run, schema: schema), to: output)
        let check = try await MCAPCheck.run(output)
        #expect(check.topics["/therm0/temperature"] == 3 && check.topics["/therm0/events"] == 1, "\(check.topics)")
        let first = try #require(check.first["/therm0/temperature"])
        #expect(first["celsius"] as? Double == 36.5 && first["battery"] as? Int == 90, "\(first)")
        #expect(check.schemas["/therm0/temperature"] == "recorderd.temperature")
        // The channel's JSON schema, as the reader dumps it.
        let dump = try await ChildProcess("/usr/bin/env", ["python3", MCAPCheck.checker, "--dump", output])
        #expect(try await dump.wait(timeout: 60) == 0)
        let jsonSchema = try #require(dump.printed.split(separator: "\n").first { $0.contains("name=recorderd.temperature") })
        #expect(jsonSchema.contains(#""celsius":{"type":"number"}"#) && jsonSchema.contains(#""battery":{"type":"integer"}"#), "\(jsonSchema)")
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func theSageArchiveHasThem() async throws {
        let (schema, celsius, battery) = Self.schema()
        let run = try Self.makeRun(schema, celsius: celsius, battery: battery)
        let output = (run as NSString).deletingLastPathComponent + "/run.zip"
        _ = try SageExporter(deviceInfo: "Linux", deviceTypeIdentifier: "test").export(try RunSource(directory: run, schema: schema), to: output)
        let check = try await SageCheck.run(output)
        let array = try #require(check.arrays["thermo.json"])
        #expect(array.count == 5 && array.keys.contains("celsius") && array.keys.contains("battery"), "\(array.keys)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.directory + "/thermo.json"))) as? [[String: Any]])
        #expect(records.compactMap { $0["celsius"] as? Double } == [36.5, 36.75, 37.125])
        #expect(records.compactMap { $0["battery"] as? Int } == [90, 89, 88])
    }
}
