import Foundation
import MotionFusion
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors
import Testing

/// Fused device motion through the real record pipeline: a replay device of a real walk, the
/// fusion stage the daemon gives every device, recordings, pre-roll and a live subscriber.
@Suite("Device motion recordings")
struct DeviceMotionRecordingTests {
    struct Setup {
        let devices: DeviceRegistry
        let runs: TaskRunRegistry
    }

    func setup(fusion: JSONValue? = nil, columns: [String: JSONValue]? = nil, speed: Double = 4) throws -> Setup {
        let data = try Fixtures.temporaryDirectory()
        var device = Fixtures.replayDevice(speed: speed)
        if case .object(var members) = device.json {
            if let fusion { members["fusion"] = fusion }
            if let columns { members["columns"] = .object(columns) }
            device = DeviceConfiguration(name: device.name, kind: device.kind, json: .object(members))
        }
        var configuration = DaemonConfiguration()
        configuration.devices = [device]
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], stageProviders: [DeviceMotionFusion()],
                                     baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 1)
        return Setup(devices: devices, runs: TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: 30, logger: Fixtures.logger))
    }

    /// The records of `stream.records` notifications, up to the first batch reaching past `end`.
    /// The device goes on sampling and its ring overwrites what a reader leaves too long (a
    /// debug build under qemu-user decodes slower than the device samples): the bytes are taken
    /// first, right after the recording, and decoded afterwards.
    func liveRecords(_ stream: LiveStream, through end: Double) throws -> [Record] {
        var batches: [[UInt8]] = []
        while true {
            let bytes = stream.drain(maximumRecords: 4096)
            if bytes.isEmpty { break }
            batches.append(bytes)
            let last = bytes.dropLast().split(separator: UInt8(ascii: "\n")).last.map { Data($0) } ?? Data()
            if let uptime = (try? JSONDecoder().decode(Record.self, from: last))?.uptime, uptime > end { break }
        }
        // The stream's records as JSON lines (the daemon wraps them in a notification).
        return try batches.flatMap { $0.split(separator: UInt8(ascii: "\n")) }.map { try JSONDecoder().decode(Record.self, from: Data($0)) }
    }

    @Test(.ownThread) func aRecordingItsPreRollAndALiveSubscriberSeeTheSameFusedValues() async throws {
        let s = try setup(fusion: .bool(true))
        let device = try s.devices.device(named: "imu0")
        #expect(device.capabilities?.sensorTypes == [.accelerometer, .gyro, .attitude, .gravity, .userAcceleration, .rotationRate])
        // devices.list keeps the raw sensors apart from what fusion adds.
        #expect(device.info.sensorTypes == [.accelerometer, .gyro] && device.info.fusedTypes == [.attitude, .gravity, .userAcceleration, .rotationRate])
        let live = try LiveStream(subscription: 1, device: device, types: [.attitude, .gravity], rate: nil, clock: SystemClock()) {}
        defer { live.close() }
        let types: [SensorType] = [.accelerometer, .attitude, .gravity, .userAcceleration, .rotationRate]
        let start = try await s.runs.start(taskIdentifier: "walk", asyncActions: [
            .motion("motion", startStepIdentifier: "walk", options: MotionOptions(recorderTypes: types, preRollSeconds: 0.5)),
        ])
        try await Fixtures.waitForFrames(device, 400)
        _ = try await s.runs.startStep(start.taskRunUUID, path: "walk/walk")
        try await Fixtures.waitForFrames(device, 400)
        let result = try await s.runs.finish(start.taskRunUUID)
        let streamed = try liveRecords(live, through: SystemClock.monotonicUptime())
        let file = try #require(result.asyncResults.first?.file)
        #expect(file.units["attitude"] == "quaternion" && file.units["gravity"] == "g" && file.units["rotationRate"] == "rad/s")
        // The file result says how to read them.
        let conventions = try #require(file.conventions)
        #expect(Set(conventions.keys) == Set(types.map(\.rawValue) + ["axes"]))
        #expect(conventions["attitude"]?.contains("North-West-Up") == true && conventions["gravity"]?.contains("at rest") == true)
        #expect(conventions["userAcceleration"]?.contains("accelerometer - gravity") == true)
        #expect(conventions["axes"]?.contains("mount matrix") == true)
        let recorded = try Fixtures.records(start.runDirectory + "/motion.jsonl").filter(\.isSample)
        for type in types { #expect(recorded.contains { $0.sensorType == type.rawValue }, "no \(type) records") }
        let attitudes = recorded.filter { $0.sensorType == "attitude" }
        #expect(attitudes.allSatisfy { $0.referenceCoordinate == "Z-Up" && $0.w != nil && $0.heading == nil })
        // The pre-roll (fusion always on) holds fused values too.
        #expect(attitudes.contains { ($0.timestamp ?? 0) < -0.2 })
        // The live subscriber saw the very same values at the same instants.
        var liveByKey: [String: Record] = [:]
        for r in streamed where r.isSample { liveByKey["\(r.sensorType!)@\(r.uptime!)"] = r }
        var compared = 0
        for r in recorded where r.sensorType == "attitude" || r.sensorType == "gravity" {
            guard let twin = liveByKey["\(r.sensorType!)@\(r.uptime!)"] else { continue }
            #expect(twin.x == r.x && twin.y == r.y && twin.z == r.z && twin.w == r.w)
            compared += 1
        }
        #expect(compared >= 1000, "only \(compared) records in both")
        // Every attitude is a unit quaternion; user acceleration is the accelerometer less gravity.
        for r in attitudes {
            let norm = (r.x! * r.x! + r.y! * r.y! + r.z! * r.z! + r.w! * r.w!).squareRoot()
            #expect(abs(norm - 1) < 1e-9)
        }
        var byInstant: [Double: [String: Record]] = [:]
        for r in recorded { byInstant[r.uptime!, default: [:]][r.sensorType!] = r }
        for (_, at) in byInstant {
            guard let a = at["accelerometer"], let g = at["gravity"], let u = at["userAcceleration"] else { continue }
            #expect(abs(a.x! - g.x! - u.x!) < 1e-12 && abs(a.y! - g.y! - u.y!) < 1e-12 && abs(a.z! - g.z! - u.z!) < 1e-12)
        }
    }

    @Test(.ownThread) func fusionRunsOnlyWhileAFusedTypeIsAskedFor() async throws {
        let s = try setup()
        let device = try s.devices.device(named: "imu0")
        let watcher = try #require(device.ring).addReader(fromUptime: nil) {}
        defer { watcher.close() }
        func motion() -> [MotionFrame] {
            var frames: [SensorFrame] = []
            _ = watcher.read(into: &frames, maximum: 1 << 20)
            return frames.compactMap { if case .motion(let m) = $0 { m } else { nil } }
        }
        let raw = try LiveStream(subscription: 1, device: device, types: nil, rate: nil, clock: SystemClock()) {}
        #expect(raw.types == [.accelerometer, .gyro])
        try await Fixtures.waitForFrames(device, 50)
        let unfused = motion()
        #expect(unfused.count >= 50 && unfused.allSatisfy { $0.fused == nil })
        let fused = try LiveStream(subscription: 2, device: device, types: [.rotationRate], rate: nil, clock: SystemClock()) {}
        try await Fixtures.waitForFrames(device, 50)
        let during = motion()
        #expect(during.suffix(40).allSatisfy { $0.fused != nil }, "fusion did not start")
        fused.close()
        try await Fixtures.waitForFrames(device, 50)
        let after = motion()
        #expect(after.suffix(40).allSatisfy { $0.fused == nil }, "fusion did not stop")
        raw.close()
    }

    @Test(.ownThread) func aFusedTypeOfADeviceWithoutAGyroscopeIsAClearErrorResult() async throws {
        let s = try setup(columns: ["accelerometer": .array([.string("acc_x"), .string("acc_y"), .string("acc_z")])])
        let start = try await s.runs.start(taskIdentifier: "t", asyncActions: [
            .motion("motion", options: MotionOptions(recorderTypes: [.accelerometer, .attitude])),
        ])
        #expect(start.errors.map(\.errorDescription) == ["device \"imu0\" has no attitude: fused device motion needs an accelerometer and a gyroscope"])
        let result = try await s.runs.finish(start.taskRunUUID)
        #expect(result.asyncResults.compactMap(\.file).first?.units == ["accelerometer": "g"])
    }

    @Test func badFusionSettingsAreRefusedWithTheirPath() throws {
        func problem(_ fusion: JSONValue, sensorTypes: [SensorType]? = nil) -> String? {
            let device = DeviceConfiguration(name: "imu0", kind: "replay", json: .object(["name": .string("imu0"), "kind": .string("replay"), "fusion": fusion]))
            do {
                try DeviceMotionFusion().validate(device, sensorTypes: sensorTypes)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(problem(.bool(true)) == nil)
        #expect(problem(.object(["proportionalGain": .number(2), "integralGain": .number(0)])) == nil)
        #expect(problem(.object(["proportionalGain": .number(0)]))?.hasPrefix("fusion.proportionalGain: expected a gain > 0 and <= 100") == true)
        #expect(problem(.object(["integralGain": .number(-1)]))?.hasPrefix("fusion.integralGain: expected a gain") == true)
        #expect(problem(.object(["alwaysOn": .string("yes")]))?.hasPrefix("fusion.alwaysOn") == true)
        #expect(problem(.object(["accelerationRejection": .number(180), "magnitudeRejection": .number(16), "recoveryTime": .number(3600)])) == nil)
        #expect(problem(.object(["accelerationRejection": .number(0)]))?.hasPrefix("fusion.accelerationRejection: expected an angle in degrees > 0 and <= 180") == true)
        #expect(problem(.object(["accelerationRejection": .number(180.001)])) != nil)
        #expect(problem(.object(["magnitudeRejection": .number(-0.1)]))?.hasPrefix("fusion.magnitudeRejection: expected g > 0 and <= 16") == true)
        #expect(problem(.object(["recoveryTime": .number(3600.5)]))?.hasPrefix("fusion.recoveryTime: expected seconds > 0 and <= 3600") == true)
        #expect(problem(.object(["recoveryTime": .string("5")])) != nil)
        // Fusion asked of a device whose configuration gives it no gyroscope.
        #expect(problem(.bool(true), sensorTypes: [.accelerometer, .magnetometer])
                == "fusion: needs an accelerometer and a gyroscope; the device's sensors are accelerometer, magnetometer")
        #expect(problem(.object([:]), sensorTypes: [.location])?.hasPrefix("fusion: needs an accelerometer and a gyroscope") == true)
        #expect(problem(.bool(false), sensorTypes: [.location]) == nil)
        #expect(problem(.bool(true), sensorTypes: [.accelerometer, .gyro]) == nil)
        #expect(problem(.number(3)) != nil)
    }
}
