import FakeIIO
import Foundation
import IIOSensors
import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing

/// recorderd against the real libiio (local backend and iiod), with a fake IIO device in a
/// private namespace as the input. Needs root; under CI these always run.
@Suite(.serialized) struct IIORecordingTests {
    static let gravity = IIOChannelRole.standardGravity

    /// The value recorderd must write for a raw count of channel `c` of `device`.
    static func expected(_ raw: Int64, _ c: FakeIIOChannel, _ device: FakeIIODevice) -> Double {
        let type: SensorType = c.id.hasPrefix("accel") ? .accelerometer : c.id.hasPrefix("anglvel") ? .gyro : .magnetometer
        return (Double(raw) + device.offset(of: c.id)) * (device.scale(of: c.id) * IIOChannelRole.unitFactor(type))
    }

    /// One count of channel `c` of `device` in the file unit.
    static func quantum(_ c: FakeIIOChannel, _ device: FakeIIODevice) -> Double {
        let type: SensorType = c.id.hasPrefix("accel") ? .accelerometer : c.id.hasPrefix("anglvel") ? .gyro : .magnetometer
        return device.scale(of: c.id) * IIOChannelRole.unitFactor(type)
    }

    /// True when the file's `value` gives back the count of the exact `target`: recorderd writes
    /// the shortest decimal within 0.45 of a count of it (`QuantizedDecimal`), so that
    /// `round(value / quantum) − offset` is the raw count.
    static func isSameCount(_ value: Double?, _ target: Double, quantum: Double) -> Bool {
        guard let value else { return false }
        return abs(value - target) <= 0.45 * quantum * (1 + 1e-9)
    }

    /// Checks every sample of `records` against the counter pattern of the stream that produced it;
    /// returns the number checked.
    /// `mounts`: the mount matrix of a channel type (`accel`), applied to the generated vector.
    static func checkCounter(_ records: [Record], device: FakeIIODevice, stream: GeneratorStream, mounts: [String: MountMatrix] = [:],
                             sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var checked = 0
        for r in records where r.isSample {
            let uptime = try! #require(r.uptime)
            let scan = stream.scan(uptime: uptime)
            let exactUptime = Double(FakeIIOPattern.timestamp(scan: scan, t0: stream.t0, rate: stream.rate)) * 1e-9
            #expect(abs(uptime - exactUptime) < 1e-6, "uptime \(uptime) is not in_timestamp \(exactUptime)", sourceLocation: sourceLocation)
            let prefix = r.sensorType == "accelerometer" ? "accel" : r.sensorType == "gyro" ? "anglvel" : "magn"
            var generated: [Double] = []
            var quantum = 0.0
            for axis in ["x", "y", "z"] {
                guard let c = device.channels.first(where: { $0.id == "\(prefix)_\(axis)" }) else {
                    Issue.record("unexpected sensor \(r.sensorType ?? "")", sourceLocation: sourceLocation)
                    return checked
                }
                generated.append(expected(FakeIIOPattern.counter(scan: scan, channel: c), c, device))
                quantum = max(quantum, Self.quantum(c, device))  // the axes of a type share a scale here
            }
            var want = Vector3(x: generated[0], y: generated[1], z: generated[2])
            if let mount = mounts[prefix] { want = mount.apply(want) }
            for (axis, value, target) in [("x", r.x, want.x), ("y", r.y, want.y), ("z", r.z, want.z)] {
                if !isSameCount(value, target, quantum: quantum) {
                    Issue.record("scan \(scan) \(prefix)_\(axis): recorded \(value ?? .nan), generated \(target)", sourceLocation: sourceLocation)
                    return checked
                }
            }
            checked += 1
        }
        return checked
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: IIOPath.allCases)
    func recordedValuesAreTheGeneratorsScaledWithTimestampsFromInTimestamp(path: IIOPath) async throws {
        // A 9-axis IMU: accelerometer (m/s² → g), gyroscope (rad/s, with an offset), magnetometer (gauss → µT).
        let device = FakeIIODevice(channels: FakeIIOChannel.imu(magn: true), offsets: ["anglvel": 3])
        let h = try IIODaemonHarness(devices: [device], path: path)
        do {
            try await h.startGenerator()
            let client = try await h.startDaemon(devices: [["name": "imu0", "device": "lsm6dsox", "frequency": 100]])
            // The nearest available rate to 100 Hz is written; the clock is made monotonic.
            #expect(h.tree.attribute("iio:device0", "sampling_frequency") == "104")
            #expect(h.tree.attribute("iio:device0", "current_timestamp_clock") == "monotonic")
            let list = try await client.devicesList()
            let info = try #require(list.devices.first { $0.name == "imu0" })
            #expect(info.state != .unavailable, "\(info)")
            #expect(info.rate == 104)
            #expect(info.sensorTypes == [.accelerometer, .gyro, .magnetometer])
            #expect(info.details?["timestampClock"] == "monotonic")
            let found = try #require(list.hardware?.first { $0.kind == "iio" && $0.id == "iio:device0" })
            #expect(found.name == "lsm6dsox")
            #expect(found.channels == ["accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z", "magn_x", "magn_y", "magn_z", "timestamp"])
            #expect(found.rates?.contains(10000) == true)
            #expect(found.details?["timestampClock"] == "monotonic")

            // recorderctl shows the same.
            let ctl = try await ChildProcess(ChildProcess.executable("recorderctl"), ["devices", "--socket", h.socket])
            #expect(try await ctl.wait(timeout: 20) == 0)
            let printed = ctl.printed
            #expect(printed.contains("imu0"), "\(printed)")
            #expect(printed.contains("iio:device0 lsm6dsox [accel_x,accel_y,accel_z,anglvel_x,anglvel_y,anglvel_z,magn_x,magn_y,magn_z,timestamp]"), "\(printed)")
            #expect(printed.contains("timestampClock=monotonic"), "\(printed)")

            let (records, result) = try await h.record(count: 300, types: [.accelerometer, .gyro, .magnetometer])
            let output = try await h.stopGenerator()
            let stream = try #require(GeneratorStream.parse(output).last)
            #expect(stream.rate == 104 && stream.clock == "monotonic")
            let samples = records.filter(\.isSample)
            #expect(samples.filter { $0.sensorType == "accelerometer" }.count == samples.filter { $0.sensorType == "gyro" }.count)
            #expect(samples.filter { $0.sensorType == "accelerometer" }.count == samples.filter { $0.sensorType == "magnetometer" }.count)
            let checked = Self.checkCounter(records, device: device, stream: stream)
            #expect(checked >= 300, "checked \(checked) samples")
            #expect(!records.contains { $0.isGap || $0.event == "error" })
            let file = try #require(result.asyncResults.compactMap(\.file).first)
            #expect(file.frequency == 104)
            #expect(file.sampleCount == samples.count)
            #expect(file.droppedSamples == 0)
        } catch {
            try await h.stop()
            throw error
        }
        try await h.stop()
    }

    /// The driver's mount matrix (`in_accel_mount_matrix`) turns the accelerometer into the
    /// device's axes; a type without one is recorded as measured.
    @Test(.enabled(if: Privileges.rootTestsEnabled("IIO mount matrix")), .ownThread)
    func theDriversMountMatrixIsApplied() async throws {
        var device = FakeIIODevice(channels: FakeIIOChannel.imu())
        device.mountMatrices = ["accel": "0, -1, 0; 1, 0, 0; 0, 0, 1"]
        let h = try IIODaemonHarness(devices: [device], path: .local)
        do {
            try await h.startGenerator()
            _ = try await h.startDaemon(devices: [["name": "imu0", "device": "lsm6dsox", "frequency": 100]])
            let (records, _) = try await h.record(count: 100, types: [.accelerometer, .gyro])
            let output = try await h.stopGenerator()
            let stream = try #require(GeneratorStream.parse(output).last)
            let mount = try #require(MountMatrix(iioText: "0, -1, 0; 1, 0, 0; 0, 0, 1"))
            #expect(Self.checkCounter(records, device: device, stream: stream, mounts: ["accel": mount]) >= 100)
        } catch {
            try await h.stop()
            throw error
        }
        try await h.stop()
    }
}
