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
    /// Gait events a `gait` analysis finds (initial contacts, walking bouts): records with
    /// `event` `step` or `bout`; live subscribers ask for it on a motion device.
    case step
    /// Heart rate from a Bluetooth LE sensor (GATT Heart Rate Measurement): records with
    /// `heartRate` in count/min, and the RR intervals, sensor contact and energy expended the
    /// sensor sent with it.
    case heartRate

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
        case .step: return "event"
        case .heartRate: return "count/min"
        }
    }

    /// How a motion type's values are to be read (a file result's `conventions`); nil for the
    /// others.
    public var convention: String? {
        switch self {
        case .accelerometer: return "g, device axes; reads +1 g along up at rest"
        case .gyro: return "rad/s, device axes, as measured (bias included)"
        case .magnetometer: return "uT, device axes, as measured"
        case .attitude: return "unit quaternion x,y,z,w taking device axes to the reference frame named by referenceCoordinate: "
            + "Z-Up (no magnetometer; heading arbitrary, fixed when fusion started) or North-West-Up (X magnetic north; "
            + "heading: degrees clockwise from north of the device's +Y axis)"
        case .gravity: return "g, device axes: what the accelerometer reads at rest, 1 g along up"
        case .userAcceleration: return "g, device axes: accelerometer - gravity (0 at rest)"
        case .rotationRate: return "rad/s, device axes: gyroscope less its estimated bias"
        case .magneticField: return "uT, device axes: magnetometer less its estimated hard-iron offset; "
            + "eventAccuracy -1 uncalibrated, 0 low, 1 medium, 2 high"
        case .heartRate: return Self.heartRateConvention
        case .location, .soundLevel, .step: return nil
        }
    }

    /// What a heart-rate file says of its records.
    public static let heartRateConvention = "heartRate in count/min as the sensor notified it (GATT Heart Rate Measurement 0x2A37); "
        + "uptime: CLOCK_MONOTONIC when the notification reached recorderd through BlueZ (notifications carry no time of their own); "
        + "rrIntervals: seconds, oldest first, exact multiples of 1/1024 s; contact: skin contact when the sensor reports it; "
        + "energyExpended: kJ since the sensor's last reset"


    /// What a motion file says of its axes.
    public static let motionAxesConvention = "the device's axes: each sensor's vector turned by its mount matrix where there is one "
        + "(IIO in_<type>_mount_matrix or mount_matrix, a replay device's mountMatrix)"

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
