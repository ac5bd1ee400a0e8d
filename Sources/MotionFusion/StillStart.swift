import RecorderModel

/// The fusion's first second, and whether the device held still through it: then the mean
/// gyroscope reading is its bias, known at once instead of learnt over tens of seconds by the
/// filter's integral term (which leaves the attitude drifting by up to bias / k_P meanwhile).
///
/// Still: every axis of the gyroscope and the accelerometer varies by less than its limit
/// (standard deviation), and the gyroscope's mean is small enough to be a bias, not a turn.
struct StillStart: Sendable {
    /// How long the start is watched, seconds.
    static let window = 1.0
    /// Largest standard deviation of a gyroscope axis, rad/s (a MEMS gyroscope's noise is ~0.001).
    static let gyroDeviation = 0.01
    /// Largest standard deviation of an accelerometer axis, g.
    static let accelerometerDeviation = 0.01
    /// Largest mean gyroscope reading taken for a bias, rad/s (≈ 6°/s).
    static let largestBias = 0.1

    private var count = 0.0
    private var gyroSum = Vector3.zero
    private var gyroSquares = Vector3.zero
    private var accelerometerSum = Vector3.zero
    private var accelerometerSquares = Vector3.zero

    mutating func add(gyro: Vector3, accelerometer: Vector3) {
        count += 1
        gyroSum = gyroSum + gyro
        gyroSquares = gyroSquares + Self.squares(gyro)
        accelerometerSum = accelerometerSum + accelerometer
        accelerometerSquares = accelerometerSquares + Self.squares(accelerometer)
    }

    /// The gyroscope's bias if the device held still, nil otherwise (or with too few readings).
    var bias: Vector3? {
        guard count >= 10 else { return nil }
        let mean = gyroSum * (1 / count)
        guard mean.length <= Self.largestBias,
              Self.largestDeviation(sum: gyroSum, squares: gyroSquares, count: count) <= Self.gyroDeviation,
              Self.largestDeviation(sum: accelerometerSum, squares: accelerometerSquares, count: count) <= Self.accelerometerDeviation
        else { return nil }
        return mean
    }

    static func squares(_ v: Vector3) -> Vector3 { Vector3(x: v.x * v.x, y: v.y * v.y, z: v.z * v.z) }

    static func largestDeviation(sum: Vector3, squares: Vector3, count: Double) -> Double {
        let mean = sum * (1 / count)
        let variance = squares * (1 / count) - Self.squares(mean)
        return max(variance.x, variance.y, variance.z, 0).squareRoot()
    }
}
