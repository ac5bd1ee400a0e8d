import FoundationEssentials
import Glibc
import RecorderModel

/// Mahony's explicit complementary filter (R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear
/// Complementary Filters on the Special Orthogonal Group", IEEE TAC 53(5), 2008) in its
/// quaternion form, with the integral term that estimates the gyroscope bias, and the
/// magnetometer correction of the MARG variant.
///
/// `attitude` takes device axes to the reference frame: Z up; with a magnetometer X points to
/// magnetic north (North-West-Up), without one the heading is where the first sample left it.
/// The accelerometer is read with its own sign convention: at rest it reads +1 g along up.
///
/// Each update: the error `e = â × v̂ₐ (+ m̂ × v̂ₘ)` between the measured and the estimated
/// directions of up (and of the field's horizontal north), the bias `b ← b − k_I e Δt`, the rate
/// `ω = gyro − b + k_P e`, and `q ← normalize(q + ½ q ⊗ (0, ω) Δt)`: the same discretisation as
/// PyPI `ahrs`' `Mahony`, against which the tests compare it.
public struct MahonyFilter: Sendable {
    /// The filter's gains.
    public struct Gains: Sendable, Equatable {
        /// k_P, 1/s: how fast the attitude follows the accelerometer (and magnetometer).
        public var proportional: Double
        /// k_I, 1/s²: how fast the gyroscope bias estimate moves.
        public var integral: Double

        /// Mahony's and `ahrs`' defaults: k_P = 1, k_I = 0.3.
        public static let standard = Gains(proportional: 1, integral: 0.3)

        public init(proportional: Double, integral: Double) {
            self.proportional = proportional
            self.integral = integral
        }
    }

    public var gains: Gains
    /// Device axes to reference axes.
    public private(set) var attitude: Quaternion
    /// The estimated gyroscope bias, rad/s (subtract it from the gyroscope); set it when it is
    /// known otherwise (measured while still).
    public var gyroBias: Vector3

    public init(gains: Gains = .standard, attitude: Quaternion = .identity, gyroBias: Vector3 = .zero) {
        self.gains = gains
        self.attitude = attitude
        self.gyroBias = gyroBias
    }

    /// Up in device axes as the attitude has it: what the accelerometer reads at rest (1 g).
    public var up: Vector3 { attitude.inverseRotate(Vector3(x: 0, y: 0, z: 1)) }

    /// One sample `dt` seconds after the previous one. Without an accelerometer reading (nil or
    /// zero: left out, e.g. rejected as linear acceleration) only the magnetometer corrects; without
    /// either the gyroscope alone moves the attitude. `gains` overrides the filter's own for this
    /// sample (the fuser raises them while it initialises).
    public mutating func update(gyro: Vector3, accelerometer: Vector3?, magnetometer: Vector3? = nil, dt: Double, gains: Gains? = nil) {
        let gains = gains ?? self.gains
        var omega = gyro - gyroBias
        var error = Vector3.zero
        var corrects = false
        if let accelerometer, case let norm = accelerometer.length, norm > 0 {
            error = (accelerometer * (1 / norm)).cross(up)
            corrects = true
        }
        if let magnetometer, case let fieldNorm = magnetometer.length, fieldNorm > 0 {
            let m = magnetometer * (1 / fieldNorm)
            let h = attitude.rotate(m)
            // The field in the reference frame has no westward part: north is +X.
            let north = attitude.inverseRotate(Vector3(x: (h.x * h.x + h.y * h.y).squareRoot(), y: 0, z: h.z))
            error = error + m.cross(north * (1 / north.length))
            corrects = true
        }
        if corrects {
            gyroBias = gyroBias - error * (gains.integral * dt)
            omega = gyro - gyroBias + error * gains.proportional
        }
        let q = attitude
        let half = 0.5 * dt
        attitude = Quaternion(w: q.w + half * (-q.x * omega.x - q.y * omega.y - q.z * omega.z),
                              x: q.x + half * (q.w * omega.x + q.y * omega.z - q.z * omega.y),
                              y: q.y + half * (q.w * omega.y - q.x * omega.z + q.z * omega.x),
                              z: q.z + half * (q.w * omega.z + q.x * omega.y - q.y * omega.x)).normalized
    }
}

extension MahonyFilter {
    /// The attitude a device at rest has when its accelerometer reads `accelerometer` (and its
    /// magnetometer `magnetometer`): up along the accelerometer; north along the field's
    /// horizontal part, or (without a magnetometer) the heading of the smallest rotation that
    /// levels the device. nil when the accelerometer reads zero.
    public static func alignment(accelerometer: Vector3, magnetometer: Vector3? = nil) -> Quaternion? {
        let norm = accelerometer.length
        guard norm > 0 else { return nil }
        let up = accelerometer * (1 / norm)
        if let magnetometer {
            let west = up.cross(magnetometer)
            let length = west.length
            if length > 1e-9 * magnetometer.length {
                let w = west * (1 / length)
                return Quaternion(rows: w.cross(up), w, up)
            }
        }
        // The smallest rotation taking `up` to +Z.
        let z = Vector3(x: 0, y: 0, z: 1)
        let axis = up.cross(z)
        let sine = axis.length
        let cosine = up.dot(z)
        if sine < 1e-12 { return cosine > 0 ? .identity : Quaternion(w: 0, x: 1, y: 0, z: 0) }
        return Quaternion(axis: axis, angle: atan2(sine, cosine))
    }
}
