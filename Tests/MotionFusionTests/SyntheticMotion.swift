import Foundation
import RecorderModel

/// A rigid IMU moving along a known trajectory (the truth the filter is judged against): rates
/// about each axis in turn, still periods, a constant gyroscope bias, a magnetometer in a known
/// field. Attitudes integrate the true rate in 100 sub-steps per sample.
struct SyntheticMotion {
    struct Sample {
        var truth: Quaternion
        var gyro: Vector3
        var accelerometer: Vector3
        var magnetometer: Vector3
    }

    /// The Earth's field in the reference frame (North-West-Up), µT: 20 north, 40 down.
    static let field = Vector3(x: 20, y: 0, z: -40)

    let rate: Double
    let bias: Vector3
    /// (seconds, body rate in rad/s) segments.
    let segments: [(seconds: Double, rate: Vector3)]
    let start: Quaternion

    static let standard = SyntheticMotion(
        rate: 100, bias: Vector3(x: 0.02, y: -0.01, z: 0.015),
        segments: [(5, .zero), (3, Vector3(x: 0.8, y: 0, z: 0)), (2, .zero), (3, Vector3(x: 0, y: -0.6, z: 0)), (2, .zero),
                   (4, Vector3(x: 0, y: 0, z: 1.2)), (2, .zero), (5, Vector3(x: 0.3, y: 0.4, z: -0.5)), (10, .zero)],
        start: Quaternion(axis: Vector3(x: 1, y: 2, z: 0.5), angle: 0.4))

    func samples() -> [Sample] {
        var q = start
        var out: [Sample] = []
        let dt = 1 / rate
        let steps = 100
        for (seconds, omega) in segments {
            for _ in 0..<Int((seconds * rate).rounded()) {
                for _ in 0..<steps {
                    let h = dt / Double(steps)
                    q = (q * Quaternion(axis: omega.length > 0 ? omega : Vector3(x: 1, y: 0, z: 0), angle: omega.length * h)).normalized
                }
                out.append(Sample(truth: q, gyro: omega + bias, accelerometer: q.inverseRotate(Vector3(x: 0, y: 0, z: 1)),
                                  magnetometer: q.inverseRotate(Self.field)))
            }
        }
        return out
    }
}
