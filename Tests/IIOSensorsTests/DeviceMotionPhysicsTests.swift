import FakeIIO
import Foundation
import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing

/// Fused device motion judged against physics, through the real libiio: two fake IMUs (one with a
/// magnetometer, one without) play a rigid body's known trajectory (`RigidIMUTrajectory.physics`:
/// turns about each axis, still periods, linear acceleration pulses, a constant gyroscope bias, a
/// known field), a real recorderd records every fused type, and what it wrote is compared with the
/// truth, and with x-io's Fusion AHRS (PyPI `imufusion`, recommended settings) run on the very
/// samples recorderd recorded.
@Suite(.serialized) struct DeviceMotionPhysicsTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Scripts/imufusion_ahrs.py").standardized.path

    /// Attitude errors in degrees over a stretch of samples.
    struct Errors: CustomStringConvertible {
        var rms: Double
        var worst: Double
        var description: String { String(format: "RMS %.3f°, worst %.3f°", rms, worst) }

        init(_ degrees: [Double]) {
            rms = (degrees.reduce(0) { $0 + $1 * $1 } / Double(max(1, degrees.count))).squareRoot()
            worst = degrees.max() ?? .nan
        }
    }

    /// One sampling instant as recorded: every record at that uptime by sensor type, and the truth.
    struct Instant {
        var seconds: Double
        var records: [String: Record]
        var truth: RigidIMUTrajectory.Sample

        func vector(_ type: String) -> Vector3? {
            records[type].flatMap { r in r.x.flatMap { x in r.y.flatMap { y in r.z.map { Vector3(x: x, y: y, z: $0) } } } }
        }

        var attitude: Quaternion? {
            records["attitude"].flatMap { r in r.w.map { Quaternion(w: $0, x: r.x!, y: r.y!, z: r.z!) } }
        }
    }

    @Test(.enabled(if: iioTestsEnabled, iioTestsSkipReason), .ownThread)
    func fusedMotionFollowsAKnownTrajectoryAndBeatsFusionAHRS() async throws {
        let trajectory = RigidIMUTrajectory.physics
        let marg = FakeIIODevice(id: "iio:device0", name: "lsm9ds1", channels: FakeIIOChannel.imu(magn: true))
        let sixAxis = FakeIIODevice(id: "iio:device1", name: "lsm6dsox", channels: FakeIIOChannel.imu())
        let h = try IIODaemonHarness(devices: [marg, sixAxis], path: .local)
        do {
            for id in ["iio:device0", "iio:device1"] { try await h.startGenerator(id, ["--motion", "physics"]) }
            let client = try await h.startDaemon(devices: [["name": "marg", "device": "iio:device0", "frequency": 100],
                                                           ["name": "imu", "device": "iio:device1", "frequency": 100]])
            let fused: [SensorType] = [.attitude, .gravity, .userAcceleration, .rotationRate]
            let run = try await client.startTask(identifier: "physics", asyncActions: [
                .motion("marg", device: "marg", options: MotionOptions(recorderTypes: [.accelerometer, .gyro, .magnetometer, .magneticField] + fused)),
                .motion("imu", device: "imu", options: MotionOptions(recorderTypes: [.accelerometer, .gyro] + fused)),
            ])
            let rate = 104.0
            let seconds = Double(trajectory.count(rate: rate)) / rate
            async let margSeen: Void = Self.awaitLiveSeconds(client, device: "marg", seconds: seconds)
            async let imuSeen: Void = Self.awaitLiveSeconds(client, device: "imu", seconds: seconds)
            _ = try await (margSeen, imuSeen)
            let result = try await run.finish()
            #expect(result.asyncResults.allSatisfy { $0.file?.droppedSamples == 0 })
            let truth = trajectory.samples(rate: rate)
            for (identifier, device, withMagnetometer) in [("marg", marg, true), ("imu", sixAxis, false)] {
                let stream = try #require(GeneratorStream.parse(try await h.stopGenerator(device.id)).last)
                #expect(stream.rate == rate)
                let records = try Fixtures.records(run.runDirectory + "/\(identifier).jsonl")
                let instants = Self.instants(records, stream: stream, truth: truth)
                #expect(Double(instants.count) >= seconds * rate * 0.98, "\(identifier): \(instants.count) instants")
                try await check(instants, device: device, magnetometer: withMagnetometer, rate: rate)
            }
        } catch {
            try await h.stop()
            throw error
        }
        try await h.stop()
    }

    /// The physical checks of one device's recording, and the comparison with Fusion AHRS.
    func check(_ instants: [Instant], device: FakeIIODevice, magnetometer: Bool, rate: Double) async throws {
        let name = magnetometer ? "9-axis" : "6-axis"
        var worstGravity = 0.0, worstUser = 0.0, worstRate = 0.0, worstHeading = 0.0, worstField = 0.0
        for i in instants {
            let attitude = try #require(i.attitude)
            #expect(abs(attitude.norm - 1) < 1e-9)
            #expect(i.records["attitude"]?.referenceCoordinate == (magnetometer ? "North-West-Up" : "Z-Up"))
            worstGravity = max(worstGravity, (try #require(i.vector("gravity")) - i.truth.gravity).length)
            worstUser = max(worstUser, (try #require(i.vector("userAcceleration")) - i.truth.userAcceleration).length)
            // The bias is known once the still start is over (a second).
            if i.seconds >= 1 { worstRate = max(worstRate, (try #require(i.vector("rotationRate")) - i.truth.rotationRate).length) }
            if magnetometer {
                let heading = try #require(i.records["attitude"]?.heading)
                var difference = abs(heading - Self.heading(i.truth.truth))
                if difference > 180 { difference = 360 - difference }
                worstHeading = max(worstHeading, difference)
                worstField = max(worstField, (try #require(i.vector("magneticField")) - i.truth.truth.inverseRotate(RigidIMUTrajectory.field)).length)
            } else {
                #expect(i.records["attitude"]?.heading == nil)
            }
        }
        // From the first sample on: the filter is aligned from it, so there is nothing to exclude.
        let ours = Self.attitudeErrors(instants, estimates: instants.map { $0.attitude! }, magnetometer: magnetometer, from: 0)
        print(String(format: "physics %@: attitude %@; gravity %.4f g, userAcceleration %.4f g, rotationRate %.4f rad/s, heading %.3f°, field %.3f µT (worst)",
                     name, ours.description, worstGravity, worstUser, worstRate, worstHeading, worstField))
        #expect(ours.worst < 1, "\(name): attitude \(ours)")
        #expect(worstGravity < 0.01, "\(name): gravity off by \(worstGravity) g")
        #expect(worstUser < 0.02, "\(name): userAcceleration off by \(worstUser) g")
        #expect(worstRate < 0.01, "\(name): rotationRate off by \(worstRate) rad/s after the first second")
        if magnetometer {
            #expect(worstHeading < 3, "\(name): heading off by \(worstHeading)°")
            #expect(worstField < 1, "\(name): field off by \(worstField) µT")
        }

        // Fusion AHRS on the recorded raw samples; both judged after Fusion's 3 s start-up.
        let fusion = try await Self.fusionAHRS(instants, device: device, magnetometer: magnetometer, rate: rate)
        let from = try #require(instants.firstIndex { $0.seconds >= 3 })
        let oursAfter = Self.attitudeErrors(instants, estimates: instants.map { $0.attitude! }, magnetometer: magnetometer, from: from)
        let theirs = Self.attitudeErrors(instants, estimates: fusion, magnetometer: magnetometer, from: from)
        print("physics \(name) after 3 s: recorderd \(oursAfter); Fusion AHRS (imufusion) \(theirs)")
        #expect(oursAfter.rms <= theirs.rms && oursAfter.worst <= theirs.worst, "\(name): recorderd \(oursAfter), Fusion \(theirs)")
    }

    /// Angles between estimates and the truth from instant `from` on. Without a magnetometer the
    /// heading is arbitrary: the truth is first turned about up by the estimate's heading offset
    /// at `from` (the same for every filter judged).
    static func attitudeErrors(_ instants: [Instant], estimates: [Quaternion], magnetometer: Bool, from: Int) -> Errors {
        var offset = Quaternion.identity
        if !magnetometer {
            let d = estimates[from] * instants[from].truth.truth.conjugate
            let x = d.rotate(Vector3(x: 1, y: 0, z: 0))
            offset = Quaternion(axis: Vector3(x: 0, y: 0, z: 1), angle: atan2(x.y, x.x))
        }
        return Errors((from..<instants.count).map { k in estimates[k].angle(to: offset * instants[k].truth.truth) * 180 / .pi })
    }

    /// The heading CoreMotion's way: the device's +Y axis clockwise from north, degrees.
    static func heading(_ attitude: Quaternion) -> Double {
        let y = attitude.rotate(Vector3(x: 0, y: 1, z: 0))
        let degrees = atan2(-y.y, y.x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The recording's sampling instants in time order, each with the trajectory sample of its
    /// scan (the generator holds the last one after the end).
    static func instants(_ records: [Record], stream: GeneratorStream, truth: [RigidIMUTrajectory.Sample]) -> [Instant] {
        var byUptime: [Double: [String: Record]] = [:]
        for r in records where r.isSample { byUptime[r.uptime!, default: [:]][r.sensorType!] = r }
        return byUptime.keys.sorted().compactMap { uptime in
            let scan = stream.scan(uptime: uptime)
            guard scan >= 0, byUptime[uptime]?["attitude"] != nil else { return nil }
            return Instant(seconds: Double(scan) / stream.rate, records: byUptime[uptime]!, truth: truth[min(scan, truth.count - 1)])
        }
    }

    /// Fusion AHRS's attitudes for the recorded raw samples, one per instant.
    static func fusionAHRS(_ instants: [Instant], device: FakeIIODevice, magnetometer: Bool, rate: Double) async throws -> [Quaternion] {
        var csv = ""
        var previous: Double?
        for i in instants {
            let uptime = i.records["attitude"]!.uptime!
            let g = i.vector("gyro")!, a = i.vector("accelerometer")!
            csv += "\(previous.map { uptime - $0 } ?? 0),\(g.x),\(g.y),\(g.z),\(a.x),\(a.y),\(a.z)"
            if magnetometer, let m = i.vector("magnetometer") { csv += ",\(m.x),\(m.y),\(m.z)" }
            csv += "\n"
            previous = uptime
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try csv.write(toFile: directory + "/samples.csv", atomically: false, encoding: .utf8)
        // The gyroscope's full scale (s16 at the device's scale), as its datasheet would give it.
        let range = device.scale(of: "anglvel_x") * 32767 * 180 / .pi
        let output = directory + "/attitudes.csv"
        let python = try await ChildProcess("/usr/bin/env", ["python3", script, directory + "/samples.csv", output, "\(rate)", "\(range)"])
        let status = try await python.wait(timeout: 300)
        let printed = python.printed
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let quaternions = text.split(separator: "\n").compactMap { line -> Quaternion? in
            let v = line.split(separator: ",").compactMap { Double($0) }
            return v.count == 4 ? Quaternion(w: v[0], x: v[1], y: v[2], z: v[3]) : nil
        }
        guard status == 0, quaternions.count == instants.count else {
            throw IIOHarnessError("imufusion_ahrs.py exited \(status) with \(quaternions.count) of \(instants.count) attitudes: \(printed.suffix(2000))")
        }
        return quaternions
    }

    /// Waits until a live subscriber of `device` has seen `seconds` of samples: the recording then
    /// holds the whole trajectory (it started no later than the first sample streamed).
    static func awaitLiveSeconds(_ client: RecorderClient, device: String, seconds: Double) async throws {
        var first: Double?
        for try await batch in try await client.subscribe(device: device, sensorTypes: [.accelerometer]) {
            for r in batch where r.isSample {
                guard let uptime = r.uptime else { continue }
                if first == nil { first = uptime }
                if uptime - first! >= seconds { return }
            }
        }
    }
}
