/// Device motion fused from one sampling instant's raw sensors and the filter's state: what
/// CoreMotion's `CMDeviceMotion` and SageResearch's device-motion records hold.
public struct DeviceMotion: Sendable, Equatable {
    /// Device axes to the reference frame.
    public var attitude: Quaternion
    public var referenceCoordinate: ReferenceCoordinate
    /// Degrees clockwise from magnetic north of the device's +Y axis projected on the horizontal
    /// (with a magnetometer only).
    public var heading: Double?
    /// What the accelerometer reads at rest, in g (the accelerometer's sign convention).
    public var gravity: Vector3
    /// `accelerometer − gravity`, in g (≈ 0 at rest).
    public var userAcceleration: Vector3
    /// The gyroscope with the estimated bias removed, rad/s.
    public var rotationRate: Vector3
    /// The magnetometer with the estimated hard-iron offset removed, µT (with a magnetometer).
    public var magneticField: Vector3?
    /// The field's calibration accuracy: -1 uncalibrated, 0 low, 1 medium, 2 high.
    public var magneticAccuracy: Int

    public init(attitude: Quaternion, referenceCoordinate: ReferenceCoordinate, heading: Double? = nil, gravity: Vector3,
                userAcceleration: Vector3, rotationRate: Vector3, magneticField: Vector3? = nil, magneticAccuracy: Int = -1) {
        self.attitude = attitude
        self.referenceCoordinate = referenceCoordinate
        self.heading = heading
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.rotationRate = rotationRate
        self.magneticField = magneticField
        self.magneticAccuracy = magneticAccuracy
    }
}

/// The reference frame of an attitude (SageResearch's `referenceCoordinate`).
public enum ReferenceCoordinate: String, Sendable, Codable, Equatable {
    /// Z up; the heading is arbitrary, fixed where fusion started (no magnetometer).
    case zUp = "Z-Up"
    /// X magnetic north, Y west, Z up (with a magnetometer).
    case northWestUp = "North-West-Up"

    /// The value as a JSON string literal.
    public var jsonString: StaticString {
        switch self {
        case .zUp: return "\"Z-Up\""
        case .northWestUp: return "\"North-West-Up\""
        }
    }
}
