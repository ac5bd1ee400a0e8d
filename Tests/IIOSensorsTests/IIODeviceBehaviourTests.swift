import FakeIIO
import Foundation
import IIOSensors
import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing

/// Rates, channel subsets, formats, two-device IMUs, kernel-side loss, clocks and a vanishing
/// device: recorderd against the real libiio with the fake device, over both backends.
@Suite(.serialized) struct IIODeviceBehaviourTests {
    static let paths: [IIOPath] = [.local, .iiod]

    /// Runs `body` with a harness and always stops it.
    static func with(_ devices: [FakeIIODevice], _ path: IIOPath, _ body: (IIODaemonHarness) async throws -> Void) async throws {
        let h = try IIODaemonHarness(devices: devices, path: path)
        do {
            try await body(h)
        } catch {
            try await h.stop()
            throw error
        }
        try await h.stop()
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func rateChangeAndChannelSubset(path: IIOPath) async throws {
        let device = FakeIIODevice()
        try await Self.with([device], path) { h in
            try await h.startGenerator()
            _ = try await h.startDaemon(devices: [["name": "imu0", "frequency": 1000, "sensorTypes": ["accelerometer"]]])
            let (records, result) = try await h.record(count: 400, types: [.accelerometer])
            let stream = try #require(GeneratorStream.parse(try await h.stopGenerator()).last)
            // 833 Hz is the available rate nearest to 1000; only the accelerometer and the
            // timestamp are enabled (a 16-byte scan).
            #expect(stream.rate == 833)
            #expect(stream.channels == ["accel_x", "accel_y", "accel_z", "timestamp"])
            #expect(Set(records.compactMap(\.sensorType)) == ["accelerometer"])
            #expect(IIORecordingTests.checkCounter(records, device: device, stream: stream) >= 400)
            let uptimes = records.filter(\.isSample).compactMap(\.uptime)
            let steps = zip(uptimes, uptimes.dropFirst()).map { $1 - $0 }
            #expect(steps.allSatisfy { abs($0 - 1 / 833.0) < 1e-6 }, "steps \(steps.min() ?? 0)…\(steps.max() ?? 0)")
            #expect(result.asyncResults.compactMap(\.file).first?.frequency == 833)

            // Restarted with another rate and the gyroscope only: the device follows.
            try await h.stopDaemon()
            try await h.startGenerator()
            _ = try await h.startDaemon(devices: [["name": "imu0", "frequency": 50, "sensorTypes": ["gyro"]]])
            let (again, _) = try await h.record(count: 30, types: [.gyro])
            let second = try #require(GeneratorStream.parse(try await h.stopGenerator()).last)
            #expect(second.rate == 52)
            #expect(second.channels == ["anglvel_x", "anglvel_y", "anglvel_z", "timestamp"])
            #expect(IIORecordingTests.checkCounter(again, device: device, stream: second) >= 30)
        }
    }

    /// A 12-bit big-endian accelerometer with an offset and no timestamp channel: values through
    /// the channel format, times from refill completion at the device's rate.
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func formatOffsetAndNoTimestampChannel(path: IIOPath) async throws {
        let channels = ["accel_x", "accel_y", "accel_z"].enumerated().map {
            FakeIIOChannel(id: $1, index: $0, bigEndian: true, signed: true, bits: 12, storage: 16, shift: 4)
        }
        let device = FakeIIODevice(name: "adxl345", channels: channels, samplingFrequency: 200, availableFrequencies: nil,
                                   scales: ["accel": 0.038307], offsets: ["accel": -2], timestampClock: nil)
        try await Self.with([device], path) { h in
            try await h.startGenerator()
            _ = try await h.startDaemon(devices: [["name": "imu0"]])
            // The live stream's first records may be measured before the recording began: without
            // a timestamp channel a refill's scans (4 at 200 Hz) are dated back from its
            // completion, and the one completing just after the start carries scans from before
            // it, which the recording leaves out (the TSan suite saw 197 of 200). Ten more.
            let (records, result) = try await h.record(count: 210, types: [.accelerometer])
            _ = try await h.stopGenerator()
            let samples = records.filter(\.isSample)
            #expect(samples.count >= 200)
            var previousScan: Int?
            for r in samples {
                // accel_x counts scans modulo 4096 (12 bits): recover the scan, check all axes.
                let raw = Int64(((r.x ?? 0) / (0.038307 / IIOChannelRole.standardGravity)).rounded()) + 2
                let scan = Int((raw % 4096 + 4096) % 4096)
                for (axis, value) in [r.x, r.y, r.z].enumerated() {
                    let want = IIORecordingTests.expected(FakeIIOPattern.counter(scan: scan, channel: channels[axis]), channels[axis], device)
                    #expect(IIORecordingTests.isSameCount(value, want, quantum: IIORecordingTests.quantum(channels[axis], device)),
                            "scan \(scan) axis \(axis)")
                }
                if let p = previousScan { #expect(scan == (p + 1) % 4096, "scans \(p) → \(scan)") }
                previousScan = scan
            }
            let uptimes = samples.compactMap(\.uptime)
            #expect(zip(uptimes, uptimes.dropFirst()).allSatisfy { $1 > $0 })
            // Refills end at their completion time; a refill completing early (they bunch up under
            // load) is pushed to half a period after the previous sample, never earlier.
            let steps = zip(uptimes, uptimes.dropFirst()).map { $1 - $0 }
            #expect(steps.allSatisfy { $0 >= 0.5 / 200 - 1e-9 }, "shortest step \(steps.min() ?? 0)")
            let mean = (uptimes.last! - uptimes.first!) / Double(uptimes.count - 1)
            #expect(abs(mean - 1 / 200.0) < 0.25 / 200, "mean step \(mean)")
            #expect(result.asyncResults.compactMap(\.file).first?.frequency == 200)
        }
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func separateAccelerometerAndGyroscopeDevices(path: IIOPath) async throws {
        let accel = FakeIIODevice(id: "iio:device0", name: "lsm6dsox_accel", channels: FakeIIOChannel.imu(gyro: false))
        let gyro = FakeIIODevice(id: "iio:device1", name: "lsm6dsox_gyro", channels: FakeIIOChannel.imu(accel: false))
        try await Self.with([accel, gyro], path) { h in
            try await h.startGenerator("iio:device0")
            try await h.startGenerator("iio:device1")
            let client = try await h.startDaemon(devices: [["name": "imu0", "device": "lsm6dsox_accel", "gyroDevice": "lsm6dsox_gyro", "frequency": 208]])
            let info = try #require(try await client.devices().first)
            #expect(info.sensorTypes == [.accelerometer, .gyro])
            #expect(info.details?["gyroDevice"] == "lsm6dsox_gyro (iio:device1)")
            let (records, _) = try await h.record(count: 400)
            let accelStream = try #require(GeneratorStream.parse(try await h.stopGenerator("iio:device0")).last)
            let gyroStream = try #require(GeneratorStream.parse(try await h.stopGenerator("iio:device1")).last)
            #expect(accelStream.rate == 208 && gyroStream.rate == 208)
            let accelRecords = records.filter { $0.sensorType == "accelerometer" }
            let gyroRecords = records.filter { $0.sensorType == "gyro" }
            #expect(accelRecords.count > 100 && gyroRecords.count > 100)
            #expect(IIORecordingTests.checkCounter(accelRecords, device: accel, stream: accelStream) == accelRecords.count)
            #expect(IIORecordingTests.checkCounter(gyroRecords, device: gyro, stream: gyroStream) == gyroRecords.count)
            // One recording interleaves both devices in time order.
            let uptimes = records.filter(\.isSample).compactMap(\.uptime)
            #expect(zip(uptimes, uptimes.dropFirst()).allSatisfy { $1 >= $0 })
        }
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func skippedSamplesBecomeGapRecordsWithTheRightCount(path: IIOPath) async throws {
        let device = FakeIIODevice()
        try await Self.with([device], path) { h in
            // Every 50 scans the generator skips 3 (their timestamps advance, as after a kernel overrun).
            try await h.startGenerator("iio:device0", ["--drop-every", "50", "--drop-count", "3"])
            _ = try await h.startDaemon(devices: [["name": "imu0", "frequency": 208]])
            let (records, result) = try await h.record(count: 600)
            let stream = try #require(GeneratorStream.parse(try await h.stopGenerator()).last)
            let accel = records.filter { $0.sensorType == "accelerometer" }
            var gaps = 0
            var previousScan: Int?
            var pendingDrop = 0
            for r in accel {
                if r.isGap {
                    #expect(r.droppedSamples == 3)
                    pendingDrop += r.droppedSamples ?? 0
                    gaps += 1
                    continue
                }
                let scan = stream.scan(uptime: r.uptime!)
                if let p = previousScan {
                    #expect(scan == p + 1 + pendingDrop, "scan \(p) → \(scan) with \(pendingDrop) declared lost")
                    #expect((scan % 50 < 47) && (pendingDrop == 0 || scan % 50 == 0))
                }
                previousScan = scan
                pendingDrop = 0
            }
            #expect(gaps >= 5)
            #expect(IIORecordingTests.checkCounter(records, device: device, stream: stream) > 500)
            let file = try #require(result.asyncResults.compactMap(\.file).first)
            // Gap records per sensor type: accelerometer and gyro each declare every loss.
            #expect(file.droppedSamples == 2 * 3 * gaps)
        }
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func deviceThatVanishesGivesAnErrorMarkerAndResumesWithAGap(path: IIOPath) async throws {
        let device = FakeIIODevice()
        try await Self.with([device], path) { h in
            try await h.startGenerator()
            let client = try await h.startDaemon(devices: [["name": "imu0", "frequency": 104]])
            let (records, result) = try await h.record(count: 100) {
                // Unplugged: the scans stop and the device leaves sysfs.
                try await h.stopGenerator()
                try h.tree.remove("iio:device0")
                try await awaitLiveRecords(client, count: 1) { $0.event == "error" }
                // Plugged back in.
                try h.tree.restore("iio:device0")
                try await h.startGenerator()
                try await awaitLiveRecords(client, count: 100)
            }
            _ = try await h.stopGenerator()
            let errorIndex = try #require(records.firstIndex { $0.event == "error" })
            #expect(records[errorIndex].errorDescription?.contains("imu0") == true)
            let before = records[..<errorIndex].last { $0.isSample && $0.sensorType == "accelerometer" }
            let gapIndex = try #require(records[errorIndex...].firstIndex { $0.isGap && $0.sensorType == "accelerometer" })
            let after = try #require(records[gapIndex...].first { $0.isSample && $0.sensorType == "accelerometer" })
            let gap = records[gapIndex]
            let lastBefore = try #require(before?.uptime)
            let expectedLoss = Int(((after.uptime! - lastBefore) * 104).rounded()) - 1
            #expect(gap.droppedSamples == expectedLoss)
            #expect(expectedLoss > 50, "an outage of at least half a second at 104 Hz")
            #expect(records[gapIndex...].filter { $0.isSample && $0.sensorType == "accelerometer" }.count >= 50)
            let file = try #require(result.asyncResults.compactMap(\.file).first)
            #expect(file.gapCount >= 2)
            #expect((file.errorCount ?? 0) >= 1)
        }
    }

    /// A configured device that is not there: unavailable with a reason that lists what is, a
    /// recording gets an error result, the daemon keeps serving.
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread) func missingDeviceIsAClearErrorAndTheDaemonStaysUp() async throws {
        try await Self.with([FakeIIODevice()], .local) { h in
            let client = try await h.startDaemon(devices: [["name": "imu0", "device": "bmi270"]])
            let info = try #require(try await client.devices().first)
            #expect(info.state == .unavailable)
            #expect(info.error?.contains("no IIO device named \"bmi270\"") == true, "\(info.error ?? "")")
            #expect(info.error?.contains("lsm6dsox (iio:device0)") == true, "the error lists the devices found")
            let run = try await client.startTask(identifier: "missing", asyncActions: [.motion("motion", device: "imu0")])
            let result = try await run.finish()
            #expect(result.asyncResults.compactMap(\.error).first?.errorDescription.contains("bmi270") == true)
            #expect(try await client.status().pid > 0)
        }
    }

    /// `current_timestamp_clock` that cannot be written stays `realtime`: each refill maps it to
    /// CLOCK_MONOTONIC.
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func realtimeTimestampsAreMappedToMonotonic(path: IIOPath) async throws {
        let device = FakeIIODevice()
        try await Self.with([device], path) { h in
            try await h.startGenerator()
            let client = try await h.startDaemon(devices: [["name": "imu0"]], readOnly: ["iio:device0/current_timestamp_clock"])
            #expect(try await client.devices().first?.details?["timestampClock"] == "realtime")
            let (records, _) = try await h.record(count: 100)
            let stream = try #require(GeneratorStream.parse(try await h.stopGenerator()).last)
            #expect(stream.clock == "realtime")
            var real = timespec(), mono = timespec()
            clock_gettime(CLOCK_REALTIME, &real)
            clock_gettime(CLOCK_MONOTONIC, &mono)
            // (In steps: Swift 6.2 gives up type-checking the expressions written whole.)
            func seconds(_ t: timespec) -> Double { Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
            let offset: Double = seconds(mono) - seconds(real)
            let samples = records.filter { $0.isSample && $0.sensorType == "accelerometer" }
            #expect(samples.count >= 50)
            for r in samples {
                let uptime: Double = r.uptime!
                let sinceStart: Double = (uptime - offset) * 1e9 - Double(stream.t0)
                let scan = Int(sinceStart * stream.rate / 1e9 + 0.5)
                let scanTime = Double(FakeIIOPattern.timestamp(scan: scan, t0: stream.t0, rate: stream.rate)) * 1e-9
                #expect(abs(uptime - (scanTime + offset)) < 0.002)
            }
        }
    }

    /// The walking recordings played through the device, quantised to its s16 and scale: the file
    /// holds the quantised walk, within half a count of the real data.
    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread, arguments: paths)
    func realWalkingDataThroughTheFakeDevice(path: IIOPath) async throws {
        let device = FakeIIODevice(scales: ["accel": 0.002394, "anglvel": 0.000153])
        let rowsSI = try FakeIIOPattern.walkRowsSI(csv: Fixtures.shortWalk)
        let rows = try Fixtures.rows(Fixtures.shortWalk)
        try await Self.with([device], path) { h in
            try await h.startGenerator("iio:device0", ["--csv", Fixtures.shortWalk])
            _ = try await h.startDaemon(devices: [["name": "imu0", "frequency": 104]])
            let (records, _) = try await h.record(count: 300)
            let stream = try #require(GeneratorStream.parse(try await h.stopGenerator()).last)
            let samples = records.filter(\.isSample)
            #expect(samples.count >= 300)
            for r in samples {
                let row = stream.scan(uptime: r.uptime!) % rows.count
                let isAccel = r.sensorType == "accelerometer"
                for (axis, value) in [r.x!, r.y!, r.z!].enumerated() {
                    let c = device.channels[(isAccel ? 0 : 3) + axis]
                    let si = isAccel ? rowsSI[row].acc[axis] : rowsSI[row].gyr[axis]
                    let want = IIORecordingTests.expected(FakeIIOPattern.quantise(si, scale: device.scale(of: c.id), channel: c), c, device)
                    let quantum = IIORecordingTests.quantum(c, device)
                    #expect(IIORecordingTests.isSameCount(value, want, quantum: quantum), "row \(row) \(c.id)")
                    // And that count is the real measurement's, to within half a count.
                    let real = isAccel ? rows[row].acc[axis] : rows[row].gyr[axis] * Double.pi / 180
                    #expect(abs(want - real) <= quantum / 2 * 1.000001, "row \(row) \(c.id): \(want) vs \(real)")
                }
            }
        }
    }
}
