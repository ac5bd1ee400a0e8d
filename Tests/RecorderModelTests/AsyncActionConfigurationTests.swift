import Foundation
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol
import Testing

@Suite("Async-action configurations (SageResearch JSON)")
struct AsyncActionConfigurationTests {
    func decode(_ json: String) throws -> AsyncActionConfiguration {
        try JSONDecoder().decode(AsyncActionConfiguration.self, from: Data(json.utf8))
    }

    func message(_ json: String) -> String {
        do {
            _ = try JSONDecoder().decode(TaskStartParams.self, from: Data(json.utf8))
            return "decoded"
        } catch {
            return DecodingErrorDescription.describe(error)
        }
    }

    @Test func sageResearchMotionRecorder() throws {
        // As in SageResearch's task JSON (with keys recorderd ignores).
        let c = try decode("""
        {"identifier": "motion", "type": "motion", "startStepIdentifier": "countdown",
         "stopStepIdentifier": "rest", "recorderTypes": ["accelerometer", "gyro", "magnetometer"],
         "frequency": 50, "requiresBackgroundAudio": true, "usesCSVEncoding": false, "_comment": {"x": [1]}}
        """)
        #expect(c.identifier == "motion")
        #expect(c.type == .motion)
        #expect(c.startStepIdentifier == "countdown")
        #expect(c.stopStepIdentifier == "rest")
        #expect(c.requiresBackgroundAudio)
        #expect(c.options == .motion(MotionOptions(recorderTypes: [.accelerometer, .gyro, .magnetometer], frequency: 50)))
    }

    @Test func defaults() throws {
        let m = try decode(#"{"identifier": "m", "type": "motion"}"#)
        #expect(m.options == .motion(MotionOptions(recorderTypes: [.accelerometer, .gyro], frequency: 100, shouldDeletePrevious: true, preRollSeconds: 0)))
        #expect(m.startStepIdentifier == nil && m.stopStepIdentifier == nil && m.device == nil)
        let d = try decode(#"{"identifier": "gps", "type": "distance"}"#)
        #expect(d.options == .distance(DistanceOptions(saveCoordinates: false)))
        let mic = try decode(#"{"identifier": "mic", "type": "microphone"}"#)
        #expect(mic.options == .microphone(MicrophoneOptions(saveAudioFile: false, levelInterval: 1)))
    }

    @Test func locationIsAnAliasOfDistance() throws {
        let c = try decode(#"{"identifier": "location", "type": "location", "saveCoordinates": true, "motionStepIdentifier": "walk", "horizontalAccuracyThreshold": 10}"#)
        #expect(c.type == .distance)
        #expect(c.options == .distance(DistanceOptions(saveCoordinates: true, motionStepIdentifier: "walk", horizontalAccuracyThreshold: 10)))
    }

    @Test func microphoneOptions() throws {
        let c = try decode(#"{"identifier": "mic", "type": "microphone", "saveAudioFile": true, "levelInterval": 0.5, "sampleRate": 48000, "channels": 1}"#)
        #expect(c.options == .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.5, sampleRate: 48000, channels: 1)))
    }

    @Test func encodingRoundTrips() throws {
        let original = AsyncActionConfiguration.motion("m", startStepIdentifier: "a", stopStepIdentifier: "b", device: "imu0",
                                                       options: MotionOptions(recorderTypes: [.gyro], frequency: 200, preRollSeconds: 2))
        let data = try JSONEncoder().encode(original)
        #expect(try JSONDecoder().decode(AsyncActionConfiguration.self, from: data) == original)
    }

    @Test func wrongTypesNameThePathAndTheExpectation() {
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "motion", "frequency": "fast"}]}"#)
            == "asyncActions[0].frequency: expected a number")
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "motion"}, {"identifier": "g", "type": "distance", "saveCoordinates": "yes"}]}"#)
            == "asyncActions[1].saveCoordinates: expected a boolean")
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "motion", "recorderTypes": "gyro"}]}"#)
            == "asyncActions[0].recorderTypes: expected an array")
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"type": "motion"}]}"#)
            == "asyncActions[0].identifier: required key is missing")
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "motion", "frequency": -5}]}"#)
            .hasPrefix("asyncActions[0].frequency: expected a frequency"))
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "motion", "recorderTypes": ["accelerometer", "heartRate"]}]}"#)
            == "asyncActions[0].recorderTypes[1]: unknown recorder type \"heartRate\": expected one of accelerometer, gyro, magnetometer, attitude, gravity, userAcceleration, rotationRate, magneticField")
        // SageResearch's device-motion types, alone or mixed with the raw ones.
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "motion", "recorderTypes": ["attitude", "gyro", "userAcceleration"]}]}"#)
            == "decoded")
    }

    @Test func unknownTypeNamesTheValidOnes() {
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "m", "type": "pedometer"}]}"#)
            == "asyncActions[0].type: unknown type \"pedometer\": expected one of motion, distance, location, microphone, gait, heartRate")
    }

    @Test func gaitActionsDecodeWithTheirSensorLocation() throws {
        let json = #"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "startStepIdentifier": "walk"},"#
            + #"{"identifier": "h", "type": "gait", "sensorLocation": "pocket", "device": "imu1"}]}"#
        let params = try JSONDecoder().decode(TaskStartParams.self, from: Data(json.utf8))
        #expect(params.asyncActions[0].options == .gait(GaitOptions(sensorLocation: .lowerBack)))
        #expect(params.asyncActions[1].options == .gait(GaitOptions(sensorLocation: .pocket)) && params.asyncActions[1].device == "imu1")
        #expect(params.asyncActions[0].type.deviceActionType == .motion)
        // Round trip through the encoder.
        let again = try JSONDecoder().decode(AsyncActionConfiguration.self, from: JSONEncoder().encode(params.asyncActions[1]))
        #expect(again == params.asyncActions[1])
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "sensorLocation": "ankle"}]}"#)
            == "asyncActions[0].sensorLocation: unknown sensor location \"ankle\": expected one of lowerBack, pocket, hand")
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "sensorLocation": 3}]}"#)
            .hasPrefix("asyncActions[0].sensorLocation: expected a string"))
    }

    /// The participant's heights: decoded, round-tripped, and refused past their ranges (and for
    /// numbers that are not finite or not numbers) with the key's path.
    @Test func gaitHeightsAreDecodedAndRangeChecked() throws {
        let json = #"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "bodyHeight": 1.75, "sensorHeight": 1.08}]}"#
        let params = try JSONDecoder().decode(TaskStartParams.self, from: Data(json.utf8))
        #expect(params.asyncActions[0].options == .gait(GaitOptions(bodyHeight: 1.75, sensorHeight: 1.08)))
        let again = try JSONDecoder().decode(AsyncActionConfiguration.self, from: JSONEncoder().encode(params.asyncActions[0]))
        #expect(again == params.asyncActions[0])
        for (key, value, range) in [("bodyHeight", "0.49", "0.5 and <= 2.75"), ("bodyHeight", "175", "0.5 and <= 2.75"),
                                    ("sensorHeight", "-1", "0.25 and <= 1.75"), ("sensorHeight", "1e308", "0.25 and <= 1.75")] {
            #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", ""# + key + #"": "# + value + "}]}")
                == "asyncActions[0].\(key): expected a height in metres >= \(range)")
        }
        #expect(message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "bodyHeight": "tall"}]}"#)
            .hasPrefix("asyncActions[0].bodyHeight: expected a number"))
    }

    /// A walking test: decoded, round-tripped, and refused with the key's path when its kind is
    /// unknown, its step missing or empty, or its course out of range.
    @Test func aWalkingTestIsDecodedAndChecked() throws {
        let json = #"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "walkingTest": {"kind": "sixMinuteWalk", "stepIdentifier": "walk", "courseLength": 30}}]}"#
        let params = try JSONDecoder().decode(TaskStartParams.self, from: Data(json.utf8))
        #expect(params.asyncActions[0].options == .gait(GaitOptions(walkingTest: WalkingTest(kind: .sixMinuteWalk, stepIdentifier: "walk", courseLength: 30))))
        let again = try JSONDecoder().decode(AsyncActionConfiguration.self, from: JSONEncoder().encode(params.asyncActions[0]))
        #expect(again == params.asyncActions[0])
        func walkingTest(_ body: String) -> String {
            message(#"{"taskIdentifier": "t", "asyncActions": [{"identifier": "g", "type": "gait", "walkingTest": "# + body + "}]}")
        }
        #expect(walkingTest(#"{"kind": "marathon", "stepIdentifier": "walk"}"#)
            == "asyncActions[0].walkingTest.kind: unknown walking test \"marathon\": expected one of sixMinuteWalk, timedWalk, timedUpAndGo")
        #expect(walkingTest(#"{"kind": "timedWalk"}"#).contains("stepIdentifier"))
        #expect(walkingTest(#"{"kind": "timedWalk", "stepIdentifier": ""}"#) == "asyncActions[0].walkingTest.stepIdentifier: a step identifier")
        for course in ["0", "-3", "1e9", "\"far\""] {
            #expect(walkingTest(#"{"kind": "timedWalk", "stepIdentifier": "w", "courseLength": "# + course + "}").hasPrefix("asyncActions[0].walkingTest.courseLength: expected"),
                    "\(course)")
        }
        #expect(WalkingTest(kind: .timedWalk, stepIdentifier: "walk").isScored(stepPath: "task/walk"))
        #expect(!WalkingTest(kind: .timedWalk, stepIdentifier: "walk").isScored(stepPath: "task/walking"))
    }

    @Test(arguments: ["../escape", "a/b", "", ".", "..", String(repeating: "x", count: 65), "caf\u{e9}", "a b", "x\u{0}"])
    func identifiersThatCouldEscapeAreRejected(_ identifier: String) throws {
        let json = try JSONEncoder().encode(["identifier": identifier, "type": "motion"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AsyncActionConfiguration.self, from: json) }
        #expect(!RecorderIdentifier.isValid(identifier))
    }

    @Test(arguments: ["motion", "walk.outbound-2_A", String(repeating: "x", count: 64), "..."])
    func validIdentifiers(_ identifier: String) {
        #expect(RecorderIdentifier.isValid(identifier))
    }
}

@Suite("Daemon configuration")
struct DaemonConfigurationTests {
    @Test func defaults() throws {
        let c = try DaemonConfiguration.decode(Data("{}".utf8))
        #expect(c.socket == "/run/recorderd/control.sock")
        #expect(c.socketMode == 0o660)
        #expect(c.dataDirectory == "/var/lib/recorderd")
        #expect(c.ringSeconds == 30)
        #expect(c.orphanTimeout == 600)
        #expect(c.devices.isEmpty)
    }

    @Test func exampleFileDecodes() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/recorderd.json")
        let c = try DaemonConfiguration.decode(try Data(contentsOf: url))
        #expect(c.devices.map(\.name) == ["imu0"])
        #expect(c.devices[0].kind == "replay")
        #expect(c.devices[0].json["speed"] == .number(1))
    }

    @Test func badValuesNameThePath() {
        #expect(throws: ConfigurationError("ringSeconds: expected seconds > 0 and <= 3600")) {
            try DaemonConfiguration.decode(Data(#"{"ringSeconds": 0}"#.utf8))
        }
        #expect(throws: ConfigurationError("socketMode: expected an octal mode such as \"0660\"")) {
            try DaemonConfiguration.decode(Data(#"{"socketMode": "rw"}"#.utf8))
        }
        #expect(throws: ConfigurationError("devices[1]: duplicate device name \"a\"")) {
            try DaemonConfiguration.decode(Data(#"{"devices": [{"name": "a", "kind": "replay"}, {"name": "a", "kind": "replay"}]}"#.utf8))
        }
        #expect(throws: ConfigurationError("devices[0].name: invalid device name: expected \(RecorderIdentifier.expectation)")) {
            try DaemonConfiguration.decode(Data(#"{"devices": [{"name": "../x", "kind": "replay"}]}"#.utf8))
        }
        #expect(throws: ConfigurationError("malformed JSON: unexpected end of input at byte 1")) {
            try DaemonConfiguration.decode(Data("{".utf8))
        }
    }

    /// Each number at its limits is accepted, past them refused with the path and the range —
    /// never converted first (retryInterval 1e16 used to trap converting to milliseconds).
    @Test(arguments: [
        (#"{"retryInterval": 1e16}"#, "retryInterval: expected seconds >= 0.01 and <= 3600"),
        (#"{"retryInterval": 0.001}"#, "retryInterval: expected seconds >= 0.01 and <= 3600"),
        (#"{"orphanTimeout": 1e300}"#, "orphanTimeout: expected seconds > 0 and <= 604800"),
        (#"{"stallTimeout": -1}"#, "stallTimeout: expected seconds >= 0.1 and <= 3600"),
        (#"{"ringSeconds": 3600.5}"#, "ringSeconds: expected seconds > 0 and <= 3600"),
        (#"{"socketMode": 1e300}"#, "socketMode: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{"socketMode": 512}"#, "socketMode: expected a mode (0 to 0777, i.e. 511) between 0 and 511"),
        (#"{"limits": {"connections": 0}}"#, "limits.connections: expected a number of connections between 1 and 4096"),
        (#"{"limits": {"taskRuns": 100000}}"#, "limits.taskRuns: expected a number of task runs between 1 and 256"),
        (#"{"limits": {"recordersPerRun": 2.5}}"#, "limits.recordersPerRun: expected an integer between -9007199254740992 and 9007199254740992"),
        (#"{"socket": ""}"#, "socket: expected a socket path of 1 to 107 bytes"),
        (#"{"dataDirectory": "a\u0000b"}"#, "dataDirectory: expected a directory path of 1 to 1024 bytes"),
    ])
    func numbersPastTheirLimitsAreRefused(json: String, message: String) {
        #expect(throws: ConfigurationError(message)) { try DaemonConfiguration.decode(Data(json.utf8)) }
    }

    @Test func limitsAtTheirBoundsAreAccepted() throws {
        let c = try DaemonConfiguration.decode(Data(#"{"retryInterval": 3600, "stallTimeout": 0.1, "orphanTimeout": 604800, "socket": "\#(String(repeating: "s", count: 107))", "limits": {"connections": 4096, "taskRuns": 1, "recordersPerRun": 256}}"#.utf8))
        #expect(c.retryInterval == 3600 && c.limits == DaemonLimits(connections: 4096, taskRuns: 1, recordersPerRun: 256))
        #expect(try DaemonConfiguration.decode(Data("{}".utf8)).limits == DaemonLimits(connections: 64, taskRuns: 16, recordersPerRun: 16))
    }

    @Test func stepDurationsOfTaskFilesAreBounded() {
        #expect(throws: ConfigurationError("steps[0].duration: expected seconds >= 0 and <= 86400")) {
            try TaskDefinition.decode(Data(#"{"identifier": "t", "steps": [{"identifier": "s", "duration": 1e300}], "asyncActions": []}"#.utf8))
        }
    }

    @Test func gaitBalanceTaskFileDecodes() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/tasks/gait-balance.json")
        let task = try TaskDefinition.decode(try Data(contentsOf: url))
        #expect(task.steps.map(\.identifier) == ["instruction", "countdown", "walking.outbound", "walking.return", "walking.rest", "conclusion"])
        #expect(task.steps.map(\.duration) == [nil, 5, 30, 30, 30, nil])
        #expect(task.asyncActions.map(\.type) == [.motion, .distance, .gait])
        #expect(task.asyncActions[2].stopStepIdentifier == "walking.rest")
        #expect(task.asyncActions[0].startStepIdentifier == "walking.outbound")
        #expect(task.asyncActions[0].stopStepIdentifier == "walking.rest")
        #expect(task.asyncActions[1].stopStepIdentifier == "walking.return")
    }

    @Test func voiceTaskFileDecodes() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/tasks/voice.json")
        let task = try TaskDefinition.decode(try Data(contentsOf: url))
        #expect(task.steps.map(\.identifier) == ["instruction", "countdown", "phonation", "conclusion"])
        #expect(task.asyncActions.map(\.type) == [.microphone])
        guard case .microphone(let options) = task.asyncActions[0].options else {
            Issue.record("not a microphone action")
            return
        }
        #expect(options.saveAudioFile && options.levelInterval == 0.1)
        #expect(task.asyncActions[0].startStepIdentifier == "countdown" && task.asyncActions[0].stopStepIdentifier == "phonation")
    }
}
