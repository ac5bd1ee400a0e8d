import FakeIIO
import Foundation
import IIOSensors
import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing

/// Devices whose buffer nothing fills: polled through their raw values; and triggers, named or
/// made through configfs (`IIOCapturePolicy` carried out against libiio's local backend on a fake
/// sysfs tree, since this machine's kernel has neither IIO triggers nor configfs).
@Suite(.serialized) struct IIOCaptureModeTests {
    /// bmi160 on a board without its interrupt wired, as its driver shows it: a buffer and a
    /// trigger consumer but no trigger, a rate per sensor type, raw registers.
    static func bmi160(raw: [String: Int64], currentTrigger: String? = "") -> FakeIIODevice {
        var device = FakeIIODevice(name: "bmi160", scales: ["accel": 0.000598, "anglvel": 0.001065], timestampClock: nil)
        device.rawValues = raw
        device.currentTrigger = currentTrigger
        device.typeFrequencies = ["accel": (100, [0.78125, 1.5625, 3.125, 6.25, 12.5, 25, 50, 100, 200, 400, 800, 1600]),
                                  "anglvel": (100, [25, 50, 100, 200, 400, 800, 1600, 3200])]
        return device
    }

    /// The value a raw count of `type` is recorded as (g for the accelerometer, rad/s for the gyro).
    static func recorded(_ raw: Int64, _ type: String, _ device: FakeIIODevice) -> Double {
        Double(raw) * device.scales[type]! / (type == "accel" ? IIOChannelRole.standardGravity : 1)
    }

    /// A recorded value is `raw` counts of `type`: files write values to the resolution of one
    /// count (the device's quantum), so within one quantum.
    static func isCounts(_ value: Double?, _ raw: Int64, _ type: String, _ device: FakeIIODevice) -> Bool {
        guard let value else { return false }
        return abs(value - recorded(raw, type, device)) <= abs(recorded(1, type, device))
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread)
    func aDeviceWithoutATriggerIsPolledAndARegisterChangedMidRecordingIsInTheRecords() async throws {
        let raw: [String: Int64] = ["accel_x": 120, "accel_y": -340, "accel_z": 16_400, "anglvel_x": 7, "anglvel_y": -3, "anglvel_z": 0]
        var device = Self.bmi160(raw: raw)
        device.typeFrequencies!["accel"]!.current = 25
        device.typeFrequencies!["anglvel"]!.current = 25
        let fake = device
        try await IIODeviceBehaviourTests.with([device], .local) { h in
            let client = try await h.startDaemon(devices: [["name": "imu0", "device": "bmi160", "frequency": 100]])
            let info = try #require(try await client.devicesList().devices.first { $0.name == "imu0" })
            #expect(info.state != .unavailable, "\(info)")
            #expect(info.rate == 100)
            #expect(info.details?["capture"]?.hasPrefix("polled: no trigger") == true, "\(info.details ?? [:])")
            #expect(info.details?["timestampClock"] == "monotonic (read time)")
            // Each type's own rate attribute is set: polled, the highest rate both offer (each read
            // the newest conversion), whatever the polling rate.
            #expect(h.tree.attribute("iio:device0", "in_accel_sampling_frequency") == "1600")
            #expect(h.tree.attribute("iio:device0", "in_anglvel_sampling_frequency") == "1600")
            #expect(info.details?["sensorFrequency"] == "1600", "\(info.details ?? [:])")
            #expect(h.tree.attribute("iio:device0", "buffer/enable") == "0", "no buffer is enabled")

            // Mid-recording the "register" changes; the new value reaches a live subscriber, then
            // the recording ends.
            let changed: Int64 = -8_000
            let (records, result) = try await h.record(count: 50, types: [.accelerometer, .gyro]) {
                try h.tree.setRaw("iio:device0", "accel_x", changed)
                try await awaitLiveRecords(client, count: 20) { r in
                    r.sensorType == "accelerometer" && Self.isCounts(r.x, changed, "accel", fake)
                }
            }
            let accelerometer = records.filter { $0.isSample && $0.sensorType == "accelerometer" }
            let gyro = records.filter { $0.isSample && $0.sensorType == "gyro" }
            #expect(accelerometer.count == gyro.count)
            let before = try #require(accelerometer.first)
            #expect(Self.isCounts(before.x, 120, "accel", device), "\(before)")
            #expect(Self.isCounts(before.y, -340, "accel", device))
            #expect(Self.isCounts(before.z, 16_400, "accel", device), "1 g, in g")
            #expect(Self.isCounts(gyro.first?.x, 7, "anglvel", device))
            #expect(Self.isCounts(gyro.first?.y, -3, "anglvel", device))
            let after = accelerometer.filter { Self.isCounts($0.x, changed, "accel", device) }
            #expect(after.count >= 20)
            // Once changed, it stays changed: the change is one step in time.
            let firstChanged = try #require(accelerometer.firstIndex { Self.isCounts($0.x, changed, "accel", device) })
            #expect(accelerometer[..<firstChanged].allSatisfy { Self.isCounts($0.x, 120, "accel", device) })
            #expect(accelerometer[firstChanged...].allSatisfy { Self.isCounts($0.x, changed, "accel", device) })

            // Times: increasing, at the rate; every tick is a sample or counted in a gap.
            let uptimes = accelerometer.compactMap(\.uptime)
            #expect(zip(uptimes, uptimes.dropFirst()).allSatisfy { $0 < $1 })
            let steps = zip(uptimes, uptimes.dropFirst()).map { $1 - $0 }.sorted()
            #expect(abs(steps[steps.count / 2] - 0.01) < 0.002, "median step \(steps[steps.count / 2]) s")
            let dropped = records.filter { $0.isGap && $0.sensorType == "accelerometer" }.compactMap(\.droppedSamples).reduce(0, +)
            let ticks = Int(((uptimes.last! - uptimes.first!) * 100).rounded()) + 1
            #expect(abs(accelerometer.count + dropped - ticks) <= 2, "\(accelerometer.count) samples + \(dropped) dropped for \(ticks) ticks")
            let file = try #require(result.asyncResults.compactMap(\.file).first)
            #expect(file.frequency == 100)
            #expect(file.droppedSamples == 2 * dropped, "the file result counts each sensor type's gaps")
        }
    }

    /// A driver with no buffer at all (st_lsm6dsx without its interrupt) is polled too; `"trigger":
    /// "none"` polls a device whose buffer works.
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread)
    func aDeviceWithoutABufferIsPolledAndTriggerNoneForcesPolling() async throws {
        var unbuffered = FakeIIODevice(id: "iio:device0", name: "lsm6ds3", channels: FakeIIOChannel.imu(timestamp: false))
        unbuffered.hasBuffer = false
        unbuffered.rawValues = ["accel_z": 16_384]
        var buffered = FakeIIODevice(id: "iio:device1", name: "lsm6dsox")
        buffered.rawValues = ["accel_z": -16_384]
        try await IIODeviceBehaviourTests.with([unbuffered, buffered], .local) { h in
            let client = try await h.startDaemon(devices: [["name": "imu0", "device": "lsm6ds3", "frequency": 50],
                                                           ["name": "imu1", "device": "lsm6dsox", "frequency": 50, "trigger": "none"]])
            let list = try await client.devicesList().devices
            let first = try #require(list.first { $0.name == "imu0" })
            let second = try #require(list.first { $0.name == "imu1" })
            #expect(first.details?["capture"] == "polled: the driver has no buffer (no data-ready interrupt)", "\(first.details ?? [:])")
            #expect(second.details?["capture"]?.contains("\"trigger\": \"none\"") == true, "\(second.details ?? [:])")
            #expect(second.rate == 50, "polled at the asked rate, the device at its highest")
            #expect(h.tree.attribute("iio:device1", "sampling_frequency") == "10000")
            #expect(h.tree.attribute("iio:device0", "sampling_frequency") == "10000")
            let (records, _) = try await h.record(count: 20, types: [.accelerometer], device: "imu1")
            let z = records.filter(\.isSample).compactMap(\.z)
            #expect(!z.isEmpty && z.allSatisfy { Self.isCounts($0, -16_384, "accel", buffered) })
        }
    }

    /// `"trigger"` names a trigger (by name) or asks for an hrtimer trigger, which recorderd makes
    /// through configfs and sets to the rate; a trigger that does not exist is the device's error.
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread)
    func aNamedTriggerIsSetAndAnHrtimerTriggerIsMadeThroughConfigfs() async throws {
        var device = FakeIIODevice(samplingFrequency: 104)
        device.currentTrigger = ""
        try await IIODeviceBehaviourTests.with([device], .local) { h in
            try h.tree.addTrigger(id: "trigger0", name: "bmi160-dev0")
            let kernel = try FakeHrtimerKernel(tree: h.tree)
            defer { kernel.stop() }
            try await h.startGenerator()
            let client = try await h.startDaemon(devices: [["name": "imu0", "device": "lsm6dsox", "frequency": 100, "trigger": "hrtimer"],
                                                           ["name": "imu1", "device": "lsm6dsox", "trigger": "no-such-trigger"]])
            let list = try await client.devicesList().devices
            let info = try #require(list.first { $0.name == "imu0" })
            #expect(info.details?["capture"] == "buffered: hrtimer trigger recorderd-imu0 made by recorderd (configured)", "\(info)")
            #expect(FileManager.default.fileExists(atPath: kernel.hrtimerDirectory + "/recorderd-imu0"))
            #expect(h.tree.attribute("iio:device0", "trigger/current_trigger") == "recorderd-imu0")
            #expect(h.tree.attribute("trigger100", "sampling_frequency") == "100", "the timer runs at the asked rate")
            #expect(info.rate == 100)
            // Live records of both types: 100 of them, 50 of the accelerometer.
            let (records, _) = try await h.record(count: 100, types: [.accelerometer])
            #expect(records.filter(\.isSample).count >= 50)
            let missing = try #require(list.first { $0.name == "imu1" })
            #expect(missing.state == .unavailable)
            #expect(missing.error?.contains("no IIO trigger named \"no-such-trigger\"") == true, "\(missing.error ?? "")")
            #expect(missing.error?.contains("bmi160-dev0 (trigger0)") == true, "the error lists the triggers")

            // Restarted with the trigger named: it becomes the current trigger.
            try await h.stopDaemon()
            try await h.stopGenerator()
            try await h.startGenerator()
            let again = try await h.startDaemon(devices: [["name": "imu0", "device": "lsm6dsox", "frequency": 100, "trigger": "bmi160-dev0"]])
            let named = try #require(try await again.devicesList().devices.first)
            #expect(named.details?["capture"] == "buffered: trigger bmi160-dev0 (configured)", "\(named)")
            #expect(h.tree.attribute("iio:device0", "trigger/current_trigger") == "bmi160-dev0")
        }
    }
}
