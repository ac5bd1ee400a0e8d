import FoundationEssentials
import Glibc
import RecorderModel

/// Whether the accelerometer may correct the attitude: it measures gravity only when the device is
/// not otherwise accelerating. A reading whose direction is more than `threshold` radians from
/// the estimated up, or whose magnitude is more than `magnitudeThreshold` from 1 g, is mostly
/// linear acceleration, and correcting towards it would tilt the estimate (a 0.3 g push would
/// pull it ~17° off; a mostly vertical one still pulls towards its small horizontal part); such
/// readings are rejected and the gyroscope carries the attitude.
///
/// Rejection cannot last: if readings have disagreed without a break for `recoveryTime` seconds,
/// the estimate is presumed wrong (it drifted, or the filter started badly) and the accelerometer
/// is trusted again until the two agree. Pure: no clock, no I/O; the fuser feeds it each reading.
public struct AccelerationRejection: Sendable, Equatable {
    /// What to do with one accelerometer reading.
    public enum Action: Sendable, Equatable {
        /// Correct the attitude with it.
        case correct
        /// Leave it out: linear acceleration.
        case reject
        /// Correct with it although it disagrees: rejection went on too long.
        case recover
    }

    /// Largest angle, radians, between the reading and the estimated up that still corrects.
    /// `.pi` or more never rejects.
    public let threshold: Double
    /// Largest difference, g, between the reading's magnitude and 1 g that still corrects.
    public let magnitudeThreshold: Double
    /// Seconds of uninterrupted rejection before the accelerometer is trusted again.
    public let recoveryTime: Double
    /// Seconds the current run of rejected readings has lasted (nil: the last one corrected).
    public private(set) var rejectedFor: Double?
    public private(set) var isRecovering = false

    /// cos(threshold): a reading corrects while â · up is at least this.
    private let cosineThreshold: Double

    public init(threshold: Double, magnitudeThreshold: Double, recoveryTime: Double) {
        self.threshold = threshold
        cosineThreshold = threshold >= .pi ? -2 : cos(threshold)
        self.magnitudeThreshold = magnitudeThreshold
        self.recoveryTime = recoveryTime
    }

    /// The action for an accelerometer reading (g) when the estimated up is `up` (a unit vector),
    /// `dt` seconds after the previous reading.
    public mutating func next(accelerometer a: Vector3, up: Vector3, dt: Double) -> Action {
        // The angle compared through its cosine: â · up ≥ cos(threshold) ⇔ angle ≤ threshold.
        let magnitude = a.length
        guard a.dot(up) < magnitude * cosineThreshold || abs(magnitude - 1) > magnitudeThreshold else {
            rejectedFor = nil
            isRecovering = false
            return .correct
        }
        if isRecovering { return .recover }
        let lasted = (rejectedFor ?? 0) + dt
        if lasted >= recoveryTime {
            rejectedFor = nil
            isRecovering = true
            return .recover
        }
        rejectedFor = lasted
        return .reject
    }
}
