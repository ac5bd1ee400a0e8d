import Foundation
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import Testing

/// Golden files of the exports (gpsd's `.chk` style): a fixed run — motion with a gap, an error
/// and a step change, a gait recorder's steps and bout, GPS fixes (one without a position), a
/// recorder that failed — exported as CSV (compared byte for byte) and as MCAP (compared as
/// Foxglove's reader dumps it: Tests/Tools/check_mcap.py --dump). After a deliberate format
/// change, `RECORDERD_REGENERATE_GOLDEN=1 swift test --filter ExportGoldenTests` rewrites them
/// (and fails, so that a regeneration is never a silent pass).
@Suite("Export golden files")
struct ExportGoldenTests {
    static let golden = Fixtures.root + "/export-golden"
    static let regenerate = ProcessInfo.processInfo.environment["RECORDERD_REGENERATE_GOLDEN"] == "1"

    /// The fixed run, written with recorderd's own encoders; `clinical` adds answers (from a
    /// Questionnaire), a gait summary and the motion's rate, for the FHIR and MORK exports.
    static func makeRun(clinical: Bool = false) throws -> String {
        let directory = try Fixtures.temporaryDirectory() + "/run"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        let t0 = 1000.0
        let out = JSONString("gait-balance/walking.outbound"), rest = JSONString("gait-balance/rest")
        var e = JSONLinesEncoder()
        e.appendMarker(uptime: t0, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: start), stepPath: out)
        for i in 0..<4 {
            let u = t0 + 0.01 * Double(i + 1)
            e.appendMotion(uptime: u, timestamp: u - t0, stepPath: out, sensorType: .accelerometer, vector: Vector3(x: 0.98 + 0.01 * Double(i), y: -0.05, z: 0.125))
            e.appendMotion(uptime: u, timestamp: u - t0, stepPath: out, sensorType: .gyro, vector: Vector3(x: 0.5, y: -0.25 * Double(i), z: 1e-7))
        }
        e.appendGap(uptime: t0 + 0.05, timestamp: 0.05, stepPath: out, sensorType: .accelerometer, droppedSamples: 3)
        e.appendMarker(uptime: t0 + 0.09, timestamp: 0.09, timestampDate: ISO8601Timestamp.string(from: start.addingTimeInterval(0.09)), stepPath: rest)
        e.appendMotion(uptime: t0 + 0.1, timestamp: 0.1, stepPath: rest, sensorType: .accelerometer, vector: Vector3(x: 1, y: 0, z: 0))
        e.appendError(uptime: t0 + 0.11, timestamp: 0.11, stepPath: rest, description: "device lost: \"imu0\", retrying")
        e.appendMotion(uptime: t0 + 0.12, timestamp: 0.12, stepPath: rest, sensorType: .gyro, vector: Vector3(x: 0, y: 0, z: -3.5))
        try Data(e.bytes).write(to: URL(fileURLWithPath: directory + "/motion.jsonl"))

        e.removeAll()
        e.appendMarker(uptime: t0, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: start), stepPath: out)
        e.appendStep(uptime: t0 + 0.02, timestamp: 0.02, stepPath: out, side: .left)
        e.appendStep(uptime: t0 + 0.07, timestamp: 0.07, stepPath: out, side: .right, strideLength: 1.234)
        e.appendBout(uptime: t0 + 0.08, timestamp: 0.08, stepPath: out, startUptime: t0 + 0.02, steps: 2, cadence: 1200,
                     spatial: BoutSpatialMeasures(distance: 0.617, walkingSpeed: 12.34, strideLength: 1.234))
        try Data(e.bytes).write(to: URL(fileURLWithPath: directory + "/gait.jsonl"))

        e.removeAll()
        e.appendMarker(uptime: t0, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: start), stepPath: out)
        e.appendLocation(LocationFix(uptime: t0 + 0.03, fixTime: 1_795_000_000, latitude: 51.5007, longitude: -0.1246, horizontalAccuracy: 4,
                                     verticalAccuracy: 6, altitude: 11.5, course: 90, speed: 1.25, mode: 3, satellitesUsed: 9),
                         timestamp: 0.03, stepPath: out, timestampDate: "2026-11-18T08:26:40.000Z", relativeDistance: nil, totalDistance: 0,
                         saveCoordinates: true)
        e.appendLocation(LocationFix(uptime: t0 + 0.06, mode: 1), timestamp: 0.06, stepPath: out, timestampDate: nil, relativeDistance: nil,
                         totalDistance: 0, saveCoordinates: true)
        e.appendLocation(LocationFix(uptime: t0 + 0.1, fixTime: 1_795_000_001, latitude: 51.50071, longitude: -0.12459, horizontalAccuracy: 3.5,
                                     mode: 2), timestamp: 0.1, stepPath: rest, timestampDate: "2026-11-18T08:26:41.000Z",
                         relativeDistance: 1.25, totalDistance: 1.25, saveCoordinates: true)
        try Data(e.bytes).write(to: URL(fileURLWithPath: directory + "/location.jsonl"))

        e.removeAll()
        e.appendMarker(uptime: t0, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: start), stepPath: out)
        e.appendHeartRate(HeartRateMeasurement(uptime: t0 + 0.04, heartRate: 96, contact: true, energyExpended: 4660,
                                               rrIntervals: [640.0 / 1024, 638.0 / 1024]), timestamp: 0.04, stepPath: out)
        e.appendHeartRate(HeartRateMeasurement(uptime: t0 + 0.05, heartRate: 0, contact: false), timestamp: 0.05, stepPath: out)
        e.appendError(uptime: t0 + 0.06, timestamp: 0.06, stepPath: out, description: "A0:9E:1A:12:34:56 disconnected")
        e.appendMarker(uptime: t0 + 0.09, timestamp: 0.09, timestampDate: ISO8601Timestamp.string(from: start.addingTimeInterval(0.09)), stepPath: rest)
        e.appendGap(uptime: t0 + 0.14, timestamp: 0.14, stepPath: rest, sensorType: .heartRate, droppedSamples: 8, duration: 0.1)
        e.appendHeartRate(HeartRateMeasurement(uptime: t0 + 0.14, heartRate: 88, rrIntervals: [0.6875]), timestamp: 0.14, stepPath: rest)
        try Data(e.bytes).write(to: URL(fileURLWithPath: directory + "/heartRate.jsonl"))

        var result = TaskResult(taskIdentifier: "gait-balance", taskRunUUID: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
                                startDate: start, status: .finished)
        result.endDate = start.addingTimeInterval(0.2)
        result.stepHistory = [
            StepHistoryEntry(stepPath: "gait-balance/walking.outbound", startDate: start, startUptime: t0, endDate: start.addingTimeInterval(0.09), endUptime: t0 + 0.09),
            StepHistoryEntry(stepPath: "gait-balance/rest", startDate: start.addingTimeInterval(0.09), startUptime: t0 + 0.09,
                             endDate: start.addingTimeInterval(0.15), endUptime: t0 + 0.15),
        ]
        var motion = FileResult(identifier: "motion", relativePath: "motion.jsonl", device: "imu0", startDate: start, startUptime: t0,
                                units: ["accelerometer": "g", "gyro": "rad/s"])
        motion.sampleCount = 10
        var gait = FileResult(identifier: "gait", relativePath: "gait.jsonl", device: "imu0", startDate: start, startUptime: t0, units: ["step": "event"])
        gait.sampleCount = 3
        var location = FileResult(identifier: "location", relativePath: "location.jsonl", device: "gps0", startDate: start, startUptime: t0,
                                  units: ["location": "m"])
        location.sampleCount = 3
        var heartRate = FileResult(identifier: "heartRate", relativePath: "heartRate.jsonl", device: "hr0", startDate: start, startUptime: t0,
                                   units: ["heartRate": "count/min"])
        heartRate.sampleCount = 3
        heartRate.gapCount = 1
        heartRate.droppedSamples = 8
        heartRate.conventions = ["heartRate": SensorType.heartRateConvention]
        if clinical {
            result.questionnaire = "http://recorderd.example/fhir/Questionnaire/gait-balance|2"
            result.stepHistory.insert(StepHistoryEntry(stepPath: "gait-balance/before/medication", startDate: start.addingTimeInterval(-5), startUptime: t0 - 5,
                                                       endDate: start.addingTimeInterval(-3), endUptime: t0 - 3, results: [
                                                        AnswerResult(identifier: "medication", answerType: .boolean, value: .bool(true))]), at: 0)
            result.stepHistory.insert(StepHistoryEntry(stepPath: "gait-balance/before/mood", startDate: start.addingTimeInterval(-3), startUptime: t0 - 3,
                                                       endDate: start.addingTimeInterval(-1), endUptime: t0 - 1, results: [
                                                        AnswerResult(identifier: "mood", answerType: .choice, value: .string("LA6569-3"),
                                                                     system: "http://loinc.org", display: "Several days")]), at: 1)
            result.stepHistory.append(StepHistoryEntry(stepPath: "gait-balance/after", startDate: start.addingTimeInterval(0.15), startUptime: t0 + 0.15,
                                                       endDate: start.addingTimeInterval(0.2), endUptime: t0 + 0.2, results: [
                                                        AnswerResult(identifier: "pain", answerType: .scale, value: .number(4)),
                                                        AnswerResult(identifier: "temperature", answerType: .decimal, value: .number(36.6), unit: "Cel"),
                                                        AnswerResult(identifier: "since", answerType: .date, value: .string("2026-11-17")),
                                                        AnswerResult(identifier: "where", answerType: .string, value: .string("left \"knee\"\nand hip"))]))
            motion.frequency = 100
            var summary = GaitStepSummary(identifier: "gait", stepPath: "gait-balance/walking.outbound", startUptime: t0 + 0.02, endUptime: t0 + 0.08, activity: .walking)
            var walking = WalkingMeasures()
            walking.stepCount = 2
            walking.cadence = 1200
            walking.walkingDuration = 0.05
            walking.distance = 0.617
            walking.walkingSpeed = 12.34
            walking.strideLength = 1.234
            summary.walking = walking
            var timed = WalkingTestOutcome(kind: .timedWalk)
            timed.distance = 10
            timed.courseLength = 10
            timed.duration = 8.104
            timed.walkingSpeed = 1.234
            summary.walkingTest = timed
            gait.stepSummaries = [summary]
            location.totalDistance = 1.25
            location.distanceByStep = ["gait-balance/rest": 1.25, "gait-balance/walking.outbound": 0]
            var walkHeart = HeartRateStepSummary(identifier: "heartRate", stepPath: "gait-balance/walking.outbound", startUptime: t0)
            walkHeart.endUptime = t0 + 0.05
            (walkHeart.count, walkHeart.withoutContact, walkHeart.mean, walkHeart.minimum, walkHeart.maximum, walkHeart.atStart) = (1, 1, 96, 96, 96, 96)
            var restHeart = HeartRateStepSummary(identifier: "heartRate", stepPath: "gait-balance/rest", startUptime: t0 + 0.09)
            restHeart.endUptime = t0 + 0.14
            (restHeart.count, restHeart.mean, restHeart.minimum, restHeart.maximum, restHeart.atStart) = (1, 88, 88, 88, 88)
            (restHeart.gapCount, restHeart.gapSeconds) = (1, 0.1)
            heartRate.heartRateSummaries = [walkHeart, restHeart]
        }
        result.asyncResults = [.file(motion), .file(gait), .file(location), .file(heartRate), .error(ErrorResult(identifier: "voice_error", errorDescription: "no microphone"))]
        try TaskResult.makeEncoder(pretty: true).encode(result).write(to: URL(fileURLWithPath: directory + "/taskResult.json"))
        return directory
    }

    /// Compares `actual` with the golden file `name` (or writes it when regenerating).
    static func compare(_ actual: Data, golden name: String) throws {
        let path = golden + "/" + name
        if regenerate {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try actual.write(to: URL(fileURLWithPath: path))
            Issue.record("regenerated \(name): check it, then run the tests without RECORDERD_REGENERATE_GOLDEN")
            return
        }
        let expected = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(actual == expected, "\(name) differs from its golden file:\n\(String(decoding: actual, as: UTF8.self))")
    }

    @Test func csvMatchesItsGoldenFiles() throws {
        let run = try Self.makeRun()
        let output = (run as NSString).deletingLastPathComponent + "/csv"
        let report = try CSVExporter().export(try RunSource(directory: run), to: output)
        #expect(report.records == 14 + 4 + 4 + 7 && report.warnings.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
        #expect(names == ["README.md", "gait.csv", "gait.events.csv", "heartRate.csv", "heartRate.events.csv", "location.csv", "location.events.csv", "motion.csv", "motion.events.csv"])
        for name in names {
            try Self.compare(try Data(contentsOf: URL(fileURLWithPath: output + "/" + name)), golden: "csv/" + name)
        }
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func sageMatchesItsGoldenFiles() async throws {
        let run = try Self.makeRun()
        let output = (run as NSString).deletingLastPathComponent + "/run.zip"
        _ = try SageExporter(deviceInfo: "Linux 6.6.51 aarch64", deviceTypeIdentifier: "Raspberry Pi 4 Model B Rev 1.5")
            .export(try RunSource(directory: run), to: output)
        let check = try await SageCheck.run(output)
        #expect(check.entries.sorted() == ["gait.json", "heartRate.json", "info.json", "location.json", "metadata.json", "motion.json", "taskResult.json"])
        for name in check.entries.sorted() {
            try Self.compare(try Data(contentsOf: URL(fileURLWithPath: check.directory + "/" + name)), golden: "sage/" + name)
        }
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func mcapMatchesItsGoldenDump() async throws {
        let run = try Self.makeRun()
        let output = (run as NSString).deletingLastPathComponent + "/run.mcap"
        _ = try MCAPExporter().export(try RunSource(directory: run), to: output)
        let p = try await ChildProcess("/usr/bin/env", ["python3", MCAPCheck.checker, "--dump", output])
        #expect(try await p.wait(timeout: 60) == 0)
        try Self.compare(Data(p.printed.utf8), golden: "run.mcap.txt")
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func fhirMatchesItsGoldenFileAndValidates() async throws {
        let run = try Self.makeRun(clinical: true)
        let output = (run as NSString).deletingLastPathComponent + "/run.fhir.json"
        let report = try FHIRExporter(subject: "Patient/example").export(try RunSource(directory: run), to: output)
        #expect(report.files == [output])
        try Self.compare(try Data(contentsOf: URL(fileURLWithPath: output)), golden: "run.fhir.json")
        // fhir.resources validates it; the SampledData equals the JSON lines, E at the gap.
        let check = try await FHIRCheck.run(output, run: run)
        #expect(check.sampled == ["motion/accelerometer": 8, "motion/gyro": 5])
        #expect(check.answers.map(\.path) == [["before", "medication"], ["before", "mood"], ["after", "pain"], ["after", "temperature"], ["after", "since"], ["after", "where"]])
        #expect(check.answers.map(\.type) == ["valueBoolean", "valueCoding", "valueInteger", "valueDecimal", "valueDate", "valueString"])
        #expect(check.questionnaire == ["http://recorderd.example/fhir/Questionnaire/gait-balance|2"] && check.responseStatus == ["completed"])
        #expect(check.subjects == ["Patient/example"])
        #expect(check.observations.map(\.code) == ["accelerometer", "gyro", "distance-walked", "location", "8867-4", "8867-4", "8867-4", "55423-8", "cadence", "walkingDuration",
                                                        "distance", "walkingSpeed", "strideLength", "timedWalkTime", "timedWalkSpeed"])
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func morkMatchesItsGoldenFileAndMORKsExample() async throws {
        let run = try Self.makeRun(clinical: true)
        let output = (run as NSString).deletingLastPathComponent + "/run.mork.json"
        var form = MORKForm()
        form.subjectName = "aabb99"
        form.studyUUID = "a2c0da8c-4dfd-4ffd-b3d5-94c762086c2f"
        form.folderOID = "SUBJECT"
        form.formOID = "GAIT"
        form.siteOID = "Site"
        form.items = ["pain": "PAIN_LEVEL"]
        form.extras = ["record_oid": "GAIT_LOG_LINE"]
        _ = try MORKExporter(form: form).export(try RunSource(directory: run), to: output)
        try Self.compare(try Data(contentsOf: URL(fileURLWithPath: output)), golden: "run.mork.json")
        let fields = try await MORKCheck.run(output)
        #expect(fields.map(\.item) == ["medication", "mood", "PAIN_LEVEL", "temperature", "since", "where",
                                        "WALKING_OUTBOUND_STEPCOUNT", "WALKING_OUTBOUND_CADENCE", "WALKING_OUTBOUND_WALKINGDURATION",
                                        "WALKING_OUTBOUND_DISTANCE", "WALKING_OUTBOUND_WALKINGSPEED", "WALKING_OUTBOUND_STRIDELENGTH",
                                        "WALKING_OUTBOUND_TIMEDWALKTIME", "WALKING_OUTBOUND_TIMEDWALKSPEED"])
        #expect(fields.map(\.value) == ["1", "LA6569-3", "4", "36.6", "2026-11-17T00:00:00", "left \"knee\"\nand hip", "2", "1200", "0.05",
                                         "0.617", "12.34", "1.234", "8.104", "1.234"])
        // Without the form's identifiers: an error naming them, and no file.
        let missing = output + ".2"
        #expect(throws: ExportError.option("MORK needs subject_name, study_uuid, folder_oid, form_oid, site_oid: give --subject-name or put them in --mapping FILE")) {
            try MORKExporter(form: MORKForm()).export(try RunSource(directory: run), to: missing)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
