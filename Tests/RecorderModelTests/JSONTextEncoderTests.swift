import Foundation
import RecorderJSON
import RecorderModel
import Testing

/// Foundation's encoder, set up as the protocol's (`TaskResult.makeEncoder`), is the independent
/// truth: the compact encoder must write the same bytes.
@Suite("Compact JSON text encoder")
struct JSONTextEncoderTests {
    func both<T: Encodable>(_ value: T) throws -> (ours: String, foundation: String) {
        let ours = try JSONTextEncoder().encode(value)
        let foundation = try TaskResult.makeEncoder().encode(value)
        return (String(decoding: ours, as: UTF8.self), String(decoding: foundation, as: UTF8.self))
    }

    static let sageManifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/export-golden/sage/taskResult.json")

    @Test func aWholeManifestAsFoundationWritesIt() throws {
        let result = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: Self.sageManifest))
        #expect(!result.stepHistory.isEmpty)
        let (ours, foundation) = try both(result)
        #expect(ours == foundation)
        // And it reads back through the client's path: the strict parser, then the value decoder.
        let back = try JSONValueDecoder().decode(TaskResult.self, from: Array(ours.utf8))
        #expect(back == result)
    }

    /// A manifest with every kind of member a run can leave: answers, gait and sway summaries,
    /// distances by step, audio gaps, an error.
    static func richManifest() -> TaskResult {
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        let t0 = 12_345.678_901_234
        var result = TaskResult(taskIdentifier: "gait-balance", taskRunUUID: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, startDate: start, status: .finished)
        result.endDate = start.addingTimeInterval(61.5)
        result.questionnaire = "http://recorderd.example/fhir/Questionnaire/gait-balance|2"
        result.stepHistory = [
            StepHistoryEntry(stepPath: "gait-balance/before/mood", startDate: start, startUptime: t0, endDate: start.addingTimeInterval(3), endUptime: t0 + 3,
                             results: [AnswerResult(identifier: "mood", answerType: .choice, value: .string("LA6569-3"), system: "http://loinc.org", display: "Several days"),
                                       AnswerResult(identifier: "temperature", answerType: .decimal, value: .number(36.6), unit: "Cel"),
                                       AnswerResult(identifier: "where", answerType: .string, value: .string("left \"knee\"\nand hip"))]),
            StepHistoryEntry(stepPath: "gait-balance/walking.outbound", startDate: start.addingTimeInterval(3), startUptime: t0 + 3),
        ]
        var motion = FileResult(identifier: "motion", relativePath: "motion.jsonl", device: "imu0", startDate: start, startUptime: t0,
                                units: ["accelerometer": "g", "gyro": "rad/s"])
        motion.sampleCount = 6_150
        motion.frequency = 100
        motion.sha256 = String(repeating: "ab", count: 32)
        var gait = FileResult(identifier: "gait", relativePath: "gait.jsonl", device: "imu0", startDate: start, startUptime: t0, units: ["step": "event"])
        var summary = GaitStepSummary(identifier: "gait", stepPath: "gait-balance/walking.outbound", startUptime: t0 + 3, endUptime: t0 + 33, activity: .walking)
        var walking = WalkingMeasures()
        walking.stepCount = 52
        walking.cadence = 104.000_000_1
        walking.walkingDuration = 30
        walking.bouts = [.init(start: t0 + 3.5, end: t0 + 32.9, steps: 52)]
        summary.walking = walking
        var still = GaitStepSummary(identifier: "gait", stepPath: "gait-balance/rest", startUptime: t0 + 33, endUptime: t0 + 61, activity: .standing)
        still.sway = SwayMeasures(rmsAP: 0.012, rmsML: 0.008, jerk: 1e-5, pathLength: 0.75, meanVelocity: 0.026_785_714_285_714_284, ellipseArea95: 3.1e-4,
                                  meanFrequency: 0.4, duration: 28)
        gait.stepSummaries = [summary, still]
        var location = FileResult(identifier: "location", relativePath: "location.jsonl", device: "gps0", startDate: start, startUptime: t0, units: ["location": "m"])
        location.totalDistance = 41.25
        location.distanceByStep = ["gait-balance/rest": 0, "gait-balance/walking.outbound": 41.25]
        var audio = FileResult(identifier: "voice", relativePath: "voice.wav", contentType: "audio/wav", startDate: start, startUptime: t0, units: [:])
        audio.gaps = [AudioGap(uptime: t0 + 10, frame: 480_000, frameCount: 480)]
        result.asyncResults = [.file(motion), .file(gait), .file(location), .file(audio), .error(ErrorResult(identifier: "heart", errorDescription: "no device"))]
        return result
    }

    @Test func aRichManifestAsFoundationWritesIt() throws {
        let result = Self.richManifest()
        let (ours, foundation) = try both(result)
        #expect(ours == foundation)
        #expect(try JSONTextEncoder(prettyPrinted: true).encode(result) == Array(try TaskResult.makeEncoder(pretty: true).encode(result)))
        #expect(try JSONValueDecoder().decode(TaskResult.self, from: Array(ours.utf8)) == result)
    }

    struct Containers: Encodable {
        var a = 1
        var empty: [Int] = []
        var emptyObject: [String: Int] = [:]
        var nested: [String: [Int]] = ["x": [1, 2], "y": []]
        var path = "a/b"
    }

    @Test func prettyAsFoundationIndentsIt() throws {
        let pretty = TaskResult.makeEncoder(pretty: true)
        let result = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: Self.sageManifest))
        #expect(try JSONTextEncoder(prettyPrinted: true).encode(result) == Array(try pretty.encode(result)))
        let ours = try JSONTextEncoder(prettyPrinted: true).encode(Containers())
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: try pretty.encode(Containers()), as: UTF8.self))
        #expect(String(decoding: ours, as: UTF8.self).contains("\"empty\" : [\n\n  ],"))
        #expect(try JSONTextEncoder(prettyPrinted: true).encode([1, 2]) == Array("[\n  1,\n  2\n]".utf8))
    }

    @Test func numbersAsFoundationWritesThem() throws {
        let doubles: [Double] = [0, -0.0, 1, -1, 100, 0.1, 0.5, 1.0 / 3, 1e-7, 1.5e-7, 123_456.789, 1e15, 1e16, 1e17, 1e21, 1.2345e22,
                                 9_007_199_254_740_993, 5e-324, .leastNormalMagnitude, .greatestFiniteMagnitude, -2.5e-300, 12_345.678_901_234]
        for d in doubles {
            let (ours, foundation) = try both(["d": d])
            #expect(ours == foundation, "\(d)")
        }
        let integers: [Int64] = [0, -1, 42, .max, .min, 9_007_199_254_740_993]
        let (ours, foundation) = try both(integers)
        #expect(ours == foundation)
        #expect(ours == "[0,-1,42,9223372036854775807,-9223372036854775808,9007199254740993]")
        let unsigned = try both([UInt64.max, 0])
        #expect(unsigned.ours == unsigned.foundation)
        let floats = try both([Float(0.1), 1e-7, 3, -2.5])
        #expect(floats.ours == floats.foundation)
    }

    @Test func stringsAsFoundationWritesThem() throws {
        let strings = ["", "plain", "a/b", "quote \" and \\ backslash", "line\nbreak\ttab\rcr", "\u{08}\u{0C}\u{01}\u{1F}\u{7F}",
                       "é 😀 \u{2028}", "</script>"]
        for s in strings {
            let (ours, foundation) = try both(["s": s])
            #expect(ours == foundation, "\(s.debugDescription)")
        }
    }

    @Test func keysSortedAsFoundationSortsThem() throws {
        let (ours, foundation) = try both(["b": 1, "a10": 2, "a9": 3, "B": 4, "a": 5, "é": 6, "_": 7, "": 8])
        #expect(ours == foundation)
    }

    struct Nested: Encodable {
        enum Keys: String, CodingKey { case inner, list, optional }
        enum InnerKeys: String, CodingKey { case x }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            var inner = c.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try inner.encode(1.5, forKey: .x)
            var list = c.nestedUnkeyedContainer(forKey: .list)
            try list.encode(true)
            try list.encodeNil()
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode("d")
            let optional: Int? = nil
            try c.encodeIfPresent(optional, forKey: .optional)
            try "parent".encode(to: c.superEncoder())
        }
    }

    @Test func nestedContainersAndTheSuperEncoder() throws {
        let (ours, foundation) = try both(Nested())
        #expect(ours == foundation)
        #expect(ours == #"{"inner":{"x":1.5},"list":[true,null,["d"]],"super":"parent"}"#)
    }

    @Test func datesAreISO8601AndReadBack() throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.125)
        let (ours, foundation) = try both(["at": date])
        #expect(ours == foundation)
        #expect(try JSONValueDecoder().decode([String: Date].self, from: Array(ours.utf8)) == ["at": date])
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Date.self, from: JSONValue.string("yesterday")) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Date.self, from: JSONValue.number(1_795_000_000)) }
    }

    @Test func nonFiniteNumbersAreRefused() {
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try JSONTextEncoder().encode(["x": bad]) }
        }
        #expect(throws: EncodingError.self) { try JSONTextEncoder().encode([Float.nan]) }
        // The error names where the number was.
        do {
            _ = try JSONTextEncoder().encode(["list": [["x": 1], ["x": Double.nan]]])
            Issue.record("a NaN was encoded")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["list", "1", "x"])
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aKeyEncodedTwiceKeepsItsLastValue() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(2, forKey: .b)
                try c.encode(1, forKey: .a)
                try c.encode(3, forKey: .b)
            }
        }
        let (ours, foundation) = try both(Twice())
        #expect(ours == foundation)
        #expect(ours == #"{"a":1,"b":3}"#)
    }
}
