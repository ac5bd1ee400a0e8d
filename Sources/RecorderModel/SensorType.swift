/// A kind of measurement a device produces; the `sensorType` of a record.
public enum SensorType: String, Sendable, Codable, CaseIterable, Hashable {
    case accelerometer
    case gyro
    case magnetometer
    case location
    case soundLevel
    /// Device motion fused from the raw sensors (SageResearch's and CoreMotion's names): the
    /// attitude quaternion, gravity and user acceleration in g, the bias-free rotation rate, the
    /// calibrated magnetic field.
    case attitude
    case gravity
    case userAcceleration
    case rotationRate
    case magneticField

    /// The unit written in files for this sensor type.
    public var unit: String {
        switch self {
        case .accelerometer: return "g"
        case .gyro: return "rad/s"
        case .magnetometer: return "uT"
        case .location: return "m"
        case .soundLevel: return "dBFS"
        case .attitude: return "quaternion"
        case .gravity, .userAcceleration: return "g"
        case .rotationRate: return "rad/s"
        case .magneticField: return "uT"
        }
    }

    /// True for the types a motion recorder records (raw and fused).
    public var isMotion: Bool { Self.motionRecorderTypes.contains(self) }

    /// True for the fused device-motion types.
    public var isFused: Bool { Self.deviceMotionTypes.contains(self) }

    /// The raw motion sensor types, in record order.
    public static let motionTypes: [SensorType] = [.accelerometer, .gyro, .magnetometer]

    /// The fused device-motion types, in record order.
    public static let deviceMotionTypes: [SensorType] = [.attitude, .gravity, .userAcceleration, .rotationRate, .magneticField]

    /// Every type a motion recorder's `recorderTypes` may name.
    public static let motionRecorderTypes: [SensorType] = motionTypes + deviceMotionTypes
}
