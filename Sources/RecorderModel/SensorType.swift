/// A kind of measurement a device produces; the `sensorType` of a record.
public enum SensorType: String, Sendable, Codable, CaseIterable, Hashable {
    case accelerometer
    case gyro
    case magnetometer
    case location
    case soundLevel

    /// The unit written in files for this sensor type.
    public var unit: String {
        switch self {
        case .accelerometer: return "g"
        case .gyro: return "rad/s"
        case .magnetometer: return "uT"
        case .location: return "m"
        case .soundLevel: return "dBFS"
        }
    }

    /// True for the motion sensors' types.
    public var isMotion: Bool { Self.motionTypes.contains(self) }

    /// The motion sensor types, in record order.
    public static let motionTypes: [SensorType] = [.accelerometer, .gyro, .magnetometer]
}
