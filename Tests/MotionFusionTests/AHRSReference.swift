import Foundation
import MotionFusion
import RecorderModel
import RecorderTestSupport

/// PyPI `ahrs` (an independent implementation of Mahony's filter) run on the same samples as
/// recorderd's `MahonyFilter`, through `Tests/Scripts/ahrs_mahony.py`.
enum AHRSReference {
    /// One sample given to the filter (gyroscope in rad/s, accelerometer in g, magnetometer in µT).
    struct Sample {
        var gyro: Vector3
        var accelerometer: Vector3
        var magnetometer: Vector3?
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Scripts/ahrs_mahony.py").standardized.path

    /// True where python3 can import the PyPI tools (scripts/setup.sh installs them); in CI the
    /// tests run regardless and fail if they are missing.
    static func isAvailable() async -> Bool {
        if Privileges.isCI { return true }
        guard let probe = try? await ChildProcess("/usr/bin/env", ["python3", "-c", "import ahrs, imufusion"]) else { return false }
        return (try? await probe.wait(timeout: 60)) == 0
    }

    /// Runs recorderd's filter on `samples` (the first aligns it) and ahrs' from the same initial
    /// attitude with the same gains and rate; returns the largest angle between them, degrees.
    static func largestDifference(_ samples: [Sample], rate: Double, gains: MahonyFilter.Gains = .standard) async throws -> Double {
        var filter = MahonyFilter(gains: gains, attitude: MahonyFilter.alignment(accelerometer: samples[0].accelerometer,
                                                                                  magnetometer: samples[0].magnetometer) ?? .identity)
        var csv = ""
        csv.reserveCapacity(samples.count * 160)
        for (i, s) in samples.enumerated() {
            if i > 0 { filter.update(gyro: s.gyro, accelerometer: s.accelerometer, magnetometer: s.magnetometer, dt: 1 / rate) }
            let q = filter.attitude
            let m = s.magnetometer ?? .zero
            csv += "\(s.gyro.x),\(s.gyro.y),\(s.gyro.z),\(s.accelerometer.x),\(s.accelerometer.y),\(s.accelerometer.z),"
            csv += "\(m.x),\(m.y),\(m.z),\(q.w),\(q.x),\(q.y),\(q.z)\n"
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/samples.csv"
        try csv.write(toFile: input, atomically: false, encoding: .utf8)
        let python = try await ChildProcess("/usr/bin/env", ["python3", script, input, "\(rate)", "\(gains.proportional)", "\(gains.integral)"])
        let status = try await python.wait(timeout: 300)
        let printed = python.printed
        guard status == 0, let line = printed.split(separator: "\n").last,
              let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let worst = json["maxDegrees"] as? Double, json["samples"] as? Int == samples.count else {
            throw ReferenceError(description: "ahrs_mahony.py exited \(status): \(printed)")
        }
        return worst
    }

    struct ReferenceError: Error, CustomStringConvertible {
        let description: String
    }

    /// A mobgap walk (accelerometer in g, gyroscope in deg/s, 100 Hz; x vertical).
    static func walk(_ path: String) throws -> [Sample] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let v = line.split(separator: ",").compactMap { Double($0) }
            guard v.count == 7 else { return nil }
            let radians = Double.pi / 180
            return Sample(gyro: Vector3(x: v[4] * radians, y: v[5] * radians, z: v[6] * radians),
                          accelerometer: Vector3(x: v[1], y: v[2], z: v[3]), magnetometer: nil)
        }
    }
}
