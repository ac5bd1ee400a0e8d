import RecorderConfiguration
import RecorderModel

/// An `iio` device: `{"name":"imu0","kind":"iio","uri":"local:","device":"lsm6dsox","frequency":100}`.
///
/// `uri` is any libiio URI (`local:`, `ip:HOST[:PORT]`, `usb:…`); absent, libiio's default
/// context (which honours `IIOD_REMOTE`). `device` is an IIO device name or id; absent, the first
/// device with buffered accelerometer channels. `gyroDevice` names a second IIO device for the
/// gyroscope (many IMUs expose accelerometer and gyroscope as two devices); its samples are
/// interleaved with the first device's in time order. `trigger` (`IIOCapturePolicy`): absent,
/// buffered capture where the device can fill its buffer and polling otherwise; a trigger's name
/// or id; `"hrtimer"` for a timer trigger recorderd makes through configfs; `"none"` to poll.
public struct IIOConfiguration: Sendable, Equatable, BackendConfiguration {
    public var name: String
    public var uri: String?
    public var device: String?
    public var gyroDevice: String?
    /// Requested sampling frequency in Hz; the nearest value in `sampling_frequency_available` is
    /// used. Absent: the device's current rate.
    public var frequency: Double?
    /// Sensor types to record (default: every motion type the device has).
    public var sensorTypes: [SensorType]?
    /// The trigger that fills the buffer: a trigger's name or id, `hrtimer` or `none` (polling);
    /// absent: chosen from what the device offers.
    public var trigger: String?

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, uri, device, gyroDevice, frequency, sensorTypes, trigger }

    public init(name: String, uri: String? = nil, device: String? = nil, gyroDevice: String? = nil,
                frequency: Double? = nil, sensorTypes: [SensorType]? = nil, trigger: String? = nil) {
        self.trigger = trigger
        self.name = name
        self.uri = uri
        self.device = device
        self.gyroDevice = gyroDevice
        self.frequency = frequency
        self.sensorTypes = sensorTypes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        uri = try c.decodeIfPresent(String.self, forKey: .uri, bytes: 1...512, expected: "expected a libiio URI such as local: or ip:HOST")
        device = try c.decodeIfPresent(String.self, forKey: .device, bytes: 1...128, expected: "expected an IIO device name or id")
        gyroDevice = try c.decodeIfPresent(String.self, forKey: .gyroDevice, bytes: 1...128, expected: "expected an IIO device name or id")
        frequency = try c.decodeIfPresent(Double.self, forKey: .frequency, in: MotionOptions.frequencyRange)
        trigger = try c.decodeIfPresent(String.self, forKey: .trigger, bytes: 1...64,
                                        expected: "expected an IIO trigger's name or id, \"hrtimer\" or \"none\"")
        if let trigger, trigger.contains("/") || trigger.hasPrefix(".") || trigger.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false }) {
            throw DecodingError.dataCorruptedError(forKey: .trigger, in: c, debugDescription: "expected an IIO trigger's name or id, \"hrtimer\" or \"none\" (no /, leading dot or whitespace)")
        }
        if let names = try c.decodeIfPresent([String].self, forKey: .sensorTypes) {
            sensorTypes = try names.map { name in
                guard let type = SensorType(rawValue: name), SensorType.motionTypes.contains(type) else {
                    throw DecodingError.dataCorruptedError(forKey: .sensorTypes, in: c, debugDescription: "unknown sensor type \(name.debugDescription): expected accelerometer, gyro or magnetometer")
                }
                return type
            }
        }
    }
}
