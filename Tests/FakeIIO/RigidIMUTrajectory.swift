import Foundation
import RecorderModel

/// A rigid IMU moving along a known trajectory: the physical truth that fused device motion is
/// judged against. Rotations at constant body rates, still periods and linear acceleration pulses,
/// with a constant gyroscope bias and a magnetometer in a known field. Units as recorderd records
/// them: g, rad/s, µT; the reference frame is North-West-Up.
///
/// Sample `i` is the state after `i + 1` sampling intervals; its gyroscope reading is the (constant)
/// body rate over the interval that ended there, so integrating the readings is exact. Segments
/// last whole sampling intervals (their seconds × rate, rounded).
public struct RigidIMUTrajectory: Sendable {
    /// One part of the trajectory.
    public enum Segment: Sendable {
        /// At rest.
        case still(seconds: Double)
        /// Turning at a constant body rate, rad/s.
        case rotate(Vector3, seconds: Double)
        /// At a fixed attitude, pushed along `peak` (g, reference frame) for the first half and
        /// braked by the opposite for the second, each ramped up and down in `ramp` seconds, so that
        /// the device ends where its velocity started.
        case push(peak: Vector3, seconds: Double, ramp: Double)
        /// At a fixed attitude, swaying: linear acceleration `amplitude` · sin(2π · `frequency` · t)
        /// (g, reference frame), t from the segment's start — a standing subject's sway.
        case sway(amplitude: Vector3, frequency: Double, seconds: Double)
    }

    /// One sampling instant.
    public struct Sample: Sendable {
        /// Device axes to reference axes.
        public var truth: Quaternion
        /// What the gyroscope reads: the body rate plus the bias, rad/s.
        public var gyro: Vector3
        /// What the accelerometer reads: up (1 g at rest) plus the linear acceleration, device axes.
        public var accelerometer: Vector3
        /// The field, device axes, µT.
        public var magnetometer: Vector3
        /// The linear acceleration the device is given, device axes, g (CoreMotion's userAcceleration).
        public var userAcceleration: Vector3
        /// The body rate without the bias, rad/s.
        public var rotationRate: Vector3
        /// Up in device axes (CoreMotion's gravity with the accelerometer's sign), g.
        public var gravity: Vector3 { truth.inverseRotate(Vector3(x: 0, y: 0, z: 1)) }
    }

    /// The Earth's field in the reference frame (North-West-Up), µT: 20 north, 40 down.
    public static let field = Vector3(x: 20, y: 0, z: -40)

    public let bias: Vector3
    public let segments: [Segment]
    public let start: Quaternion
    /// Standard deviation of the accelerometer's white noise, g (0: none); the same noise every
    /// time (a fixed seed).
    public let accelerometerNoise: Double

    public init(bias: Vector3, segments: [Segment], start: Quaternion, accelerometerNoise: Double = 0) {
        self.bias = bias
        self.segments = segments
        self.start = start
        self.accelerometerNoise = accelerometerNoise
    }

    /// A standing subject, worn on the lower back with the device's x axis up and z pointing
    /// backwards: 9 s still, then 20 s swaying forwards and backwards (0.03 g at 0.5 Hz), then
    /// still; accelerometer white noise 0.001 g (about twice an LSM6DSOX's at 104 Hz).
    public static let sway = RigidIMUTrajectory(
        bias: standard.bias,
        segments: [.still(seconds: 9), .sway(amplitude: swayAmplitude, frequency: swayFrequency, seconds: 20), .still(seconds: 4)],
        start: Quaternion(axis: Vector3(x: 0, y: 1, z: 0), angle: -Double.pi / 2), accelerometerNoise: 0.001)
    /// The sway of `sway`: along the reference x (the device's −z, anterior-posterior), g; Hz.
    public static let swayAmplitude = Vector3(x: 0.03, y: 0, z: 0)
    public static let swayFrequency = 0.5

    /// Turns about each axis in turn and about all three, with still periods between.
    public static let standard = RigidIMUTrajectory(
        bias: Vector3(x: 0.02, y: -0.01, z: 0.015),
        segments: [.still(seconds: 5), .rotate(Vector3(x: 0.8, y: 0, z: 0), seconds: 3), .still(seconds: 2),
                   .rotate(Vector3(x: 0, y: -0.6, z: 0), seconds: 3), .still(seconds: 2),
                   .rotate(Vector3(x: 0, y: 0, z: 1.2), seconds: 4), .still(seconds: 2),
                   .rotate(Vector3(x: 0.3, y: 0.4, z: -0.5), seconds: 5), .still(seconds: 10)],
        start: Quaternion(axis: Vector3(x: 1, y: 2, z: 0.5), angle: 0.4))

    /// What the physics test drives through libiio, in 25 s: a still start, turns about each axis
    /// and about all three, and linear acceleration pulses (horizontal, then vertical) between
    /// still periods.
    public static let physics = RigidIMUTrajectory(
        bias: standard.bias,
        segments: [.still(seconds: 3), .rotate(Vector3(x: 0.8, y: 0, z: 0), seconds: 2), .still(seconds: 1),
                   .rotate(Vector3(x: 0, y: -0.6, z: 0), seconds: 2), .still(seconds: 1),
                   .rotate(Vector3(x: 0, y: 0, z: 1.2), seconds: 3), .still(seconds: 1),
                   .rotate(Vector3(x: 0.3, y: 0.4, z: -0.5), seconds: 3), .still(seconds: 2),
                   .push(peak: Vector3(x: 0.4, y: -0.3, z: 0), seconds: 1.2, ramp: 0.05), .still(seconds: 2),
                   .push(peak: Vector3(x: 0.1, y: 0, z: 0.4), seconds: 1, ramp: 0.05), .still(seconds: 2)],
        start: standard.start)

    /// Number of samples at `rate` Hz.
    public func count(rate: Double) -> Int {
        segments.reduce(0) { $0 + Self.samples(in: $1, rate: rate) }
    }

    static func samples(in segment: Segment, rate: Double) -> Int {
        switch segment {
        case .still(let s), .rotate(_, let s), .push(_, let s, _), .sway(_, _, let s): return Int((s * rate).rounded())
        }
    }

    /// Every sample at `rate` Hz.
    public func samples(rate: Double) -> [Sample] {
        var q = start
        var out: [Sample] = []
        out.reserveCapacity(count(rate: rate))
        let dt = 1 / rate
        let up = Vector3(x: 0, y: 0, z: 1)
        var noise = GaussianNoise(seed: 0x5EED)
        for segment in segments {
            let n = Self.samples(in: segment, rate: rate)
            var omega = Vector3.zero
            if case .rotate(let rate, _) = segment { omega = rate }
            // The rotation over one interval at a constant body rate, in closed form.
            let step = omega.length > 0 ? Quaternion(axis: omega, angle: omega.length * dt) : .identity
            for k in 1..<(n + 1) {
                q = (q * step).normalized
                var linear = Vector3.zero
                if case .push(let peak, let seconds, let ramp) = segment {
                    linear = peak * Self.pushProfile(t: Double(k) * dt, seconds: seconds, ramp: ramp)
                }
                if case .sway(let amplitude, let frequency, _) = segment {
                    linear = amplitude * sin(2 * Double.pi * frequency * Double(k) * dt)
                }
                var measured = q.inverseRotate(up + linear)
                if accelerometerNoise > 0 {
                    measured = measured + Vector3(x: noise.next(), y: noise.next(), z: noise.next()) * accelerometerNoise
                }
                out.append(Sample(truth: q, gyro: omega + bias, accelerometer: measured,
                                  magnetometer: q.inverseRotate(Self.field), userAcceleration: q.inverseRotate(linear),
                                  rotationRate: omega))
            }
        }
        return out
    }

    /// The push's acceleration as a fraction of its peak `t` seconds into it: +1 on the first
    /// half, −1 on the second, with smooth (raised-cosine) ramps of `ramp` seconds.
    static func pushProfile(t: Double, seconds: Double, ramp: Double) -> Double {
        let half = seconds / 2
        func pulse(_ t: Double) -> Double {
            guard t > 0, t < half else { return 0 }
            let edge = min(t, half - t)
            return edge >= ramp ? 1 : 0.5 - 0.5 * cos(Double.pi * edge / ramp)
        }
        return pulse(t) - pulse(t - half)
    }
}

/// Standard normal deviates from a fixed seed (a 64-bit LCG, Box–Muller).
struct GaussianNoise {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func uniform() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }

    mutating func next() -> Double {
        (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
    }
}
