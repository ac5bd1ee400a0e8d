import Foundation
import RecorderTestSupport
import MotionFusion
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel
import ReplaySensors

/// The fusion's cost per sample (`BENCH_ONLY=fusion`): the device stage over a real walk's frames
/// (looped to 2 million), in deliveries of 200 frames as a 10 kHz device's sampler hands them
/// over, and the bare filter update; the peer is x-io's Fusion AHRS (C, PyPI `imufusion`) on the
/// same samples in the same run, timed around its own update loop (which includes Python's
/// per-call overhead: an upper bound for Fusion's own cost).
enum FusionBenchmark {
    static func run(walk: String) async {
        let configuration = try! JSONValue.object([
            "name": .string("imu0"), "kind": .string("replay"), "file": .string(walk), "frequency": .number(100),
            "columns": .object(["accelerometer": .array([.string("acc_x"), .string("acc_y"), .string("acc_z")]),
                                "gyro": .array([.string("gyr_x"), .string("gyr_y"), .string("gyr_z")])]),
            "units": .object(["accelerometer": .string("g"), "gyro": .string("deg/s")]),
        ]).decode(ReplayConfiguration.self)
        let walkFrames = try! ReplayData.load(path: walk, configuration: configuration).frames
        let total = Int(ProcessInfo.processInfo.environment["BENCH_FUSION_SAMPLES"] ?? "") ?? 2_000_000
        var frames: [SensorFrame] = []
        frames.reserveCapacity(total)
        for i in 0..<total {
            var f = walkFrames[i % walkFrames.count]
            f.uptime = Double(i) / 10_000
            frames.append(.motion(f))
        }
        let device = DeviceConfiguration(name: "imu0", kind: "replay", json: .object(["name": .string("imu0"), "kind": .string("replay")]))
        let stage = DeviceMotionFusion().makeStage(configuration: device, capabilities: DeviceCapabilities(sensorTypes: [.accelerometer, .gyro], rate: 10_000))!
        stage.restart()
        // Copies of the batches first, so that the timing covers `process` alone.
        var batches = stride(from: 0, to: total, by: 200).map { Array(frames[$0..<min($0 + 200, total)]) }
        var best = Double.infinity
        for _ in 0..<3 {
            let t0 = Benchmarks.cpuSeconds()
            for i in batches.indices { stage.process(&batches[i]) }
            best = min(best, (Benchmarks.cpuSeconds() - t0) / Double(total) * 1e9)
        }
        // The bare filter update.
        var filter = MahonyFilter(attitude: MahonyFilter.alignment(accelerometer: walkFrames[0].accelerometer!)!)
        var bare = Double.infinity
        for _ in 0..<3 {
            let t0 = Benchmarks.cpuSeconds()
            for i in 0..<total {
                let f = walkFrames[i % walkFrames.count]
                filter.update(gyro: f.gyro!, accelerometer: f.accelerometer!, dt: 1e-4)
            }
            bare = min(bare, (Benchmarks.cpuSeconds() - t0) / Double(total) * 1e9)
        }
        let peer = ProcessInfo.processInfo.environment["BENCH_FUSION_SAMPLES"] == nil ? await imufusionNanoseconds(walk: walk) : nil
        Benchmarks.say(String(format: "fusion: device stage %.0f ns per sample (attitude %.3f, %.3f, %.3f, %.3f); bare Mahony update %.0f ns; imufusion (Fusion AHRS via Python) %@ ns per sample; ratio stage / imufusion %@",
                              best, filter.attitude.w, filter.attitude.x, filter.attitude.y, filter.attitude.z, bare,
                              peer.map { String(format: "%.0f", $0) } ?? "n/a", peer.map { String(format: "%.2f×", best / $0) } ?? "n/a"))
    }

    /// Fusion AHRS's update loop over the walk's samples (looped to 200,000), ns per sample.
    static func imufusionNanoseconds(walk: String) async -> Double? {
        let script = """
        import sys, time, numpy as np, imufusion
        d = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
        acc = [np.ascontiguousarray(r) for r in d[:, 1:4]]
        gyr = [np.ascontiguousarray(r) for r in d[:, 4:7]]
        n = 200000
        ahrs = imufusion.Ahrs()
        ahrs.set_sample_period(1e-4)
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            for i in range(n):
                k = i % len(d)
                ahrs.update_no_magnetometer(gyr[k], acc[k])
            best = min(best, (time.process_time() - t0) / n * 1e9)
        print(best)
        """
        guard let (_, out) = try? await ChildProcess.run("/usr/bin/env", ["python3", "-c", script, walk], output: .capturedWithoutErrors) else { return nil }
        return Double(out.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
